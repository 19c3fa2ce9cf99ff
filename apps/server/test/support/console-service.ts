import { freePort } from "@resident/testkit/processes";
import { type InProcessService, startInProcessService } from "./in-process-service.ts";

/** One instance whose public URL is the address it listens on, as a browser reaching the console sees it. */
export async function startConsoleService(): Promise<InProcessService> {
  const port = await freePort();
  return startInProcessService({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
}
