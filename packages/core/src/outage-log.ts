import { StoreUnavailableError } from "./errors.ts";
import type { Logger } from "./ports/telemetry.ts";

/**
 * Logs a best-effort write that failed: a warning, unless the store is merely away — that outage is logged once,
 * where it is detected, and a line per answer while it lasts would bury everything else.
 */
export function warnUnlessAway(logger: Logger, err: unknown, fields: object, msg: string): void {
  if (err instanceof StoreUnavailableError) logger.debug({ ...fields, err: err.message }, msg);
  else logger.warn({ ...fields, err }, msg);
}
