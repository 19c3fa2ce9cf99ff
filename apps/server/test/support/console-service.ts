import { type InProcessService, startAtOwnAddress } from "./in-process-service.ts";

/** One instance whose public URL is the address it listens on, as a browser reaching the console sees it. */
export function startConsoleService(): Promise<InProcessService> {
  return startAtOwnAddress();
}
