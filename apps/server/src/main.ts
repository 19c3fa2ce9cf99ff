import { setFlagsFromString } from "node:v8";
import { loadConfig, shutdownGraceMs } from "./config.ts";
import { createLogger } from "./logger.ts";
import { startService } from "./service.ts";

// Young-generation collections on the main thread alone. V8's parallel scavenge ends by waiting for its helper
// threads; on a box with more runnable processes than cores (instances, nginx, Redis) a descheduled helper
// stretched that wait into the ack's p99 (infra/bench/JOURNAL.md, "The scavenger's helper threads"). Read at every
// collection, so it takes effect here; a node started with its own --[no-]parallel-scavenge keeps that.
if (!process.execArgv.some((flag) => /^--(no-)?parallel[-_]scavenge$/.test(flag)))
  setFlagsFromString("--no-parallel-scavenge");

const config = loadConfig();
const logger = createLogger(config.logLevel, config.instanceId);
const service = await startService(config, logger);

if (service.generatedOperatorToken) {
  // Printed once, on the very first start, outside the (redacted) log: it is shown nowhere else.
  process.stderr.write(
    `\n  Operator token (shown once; set ADMIN_TOKEN to choose your own):\n\n    ${service.generatedOperatorToken}\n\n`,
  );
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down: no new requests, finishing jobs in hand");
  setTimeout(() => {
    logger.warn({}, "jobs still in hand after the grace period; exiting, their locks will lapse");
    process.exit(1);
  }, shutdownGraceMs).unref();
  try {
    await service.close();
    process.exit(0);
  } catch (err) {
    logger.error({ err }, "unclean shutdown");
    process.exit(1);
  }
}
process.once("SIGTERM", () => void shutdown("SIGTERM"));
process.once("SIGINT", () => void shutdown("SIGINT"));
