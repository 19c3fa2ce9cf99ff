import { buildApp } from "./app.ts";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createRuntime } from "./runtime.ts";

const config = loadConfig();
const logger = createLogger(config.logLevel, config.instanceId);
const runtime = await createRuntime(config, logger);

const operatorToken = await runtime.tenants.tokens.ensureOperatorToken(config.adminToken);
if (operatorToken) {
  // Printed once, on the very first start, outside the (redacted) log: it is shown nowhere else.
  process.stderr.write(
    `\n  Operator token (shown once; set ADMIN_TOKEN to choose your own):\n\n    ${operatorToken}\n\n`,
  );
}

const app = buildApp(runtime, logger);
await app.listen({ port: config.port, host: config.host });
runtime.startWorkers();
logger.info({ role: config.role, publicUrl: config.publicUrl }, "resident is up");

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down: no new requests, finishing jobs in hand");
  try {
    await app.close();
    await runtime.close();
    process.exit(0);
  } catch (err) {
    logger.error({ err }, "unclean shutdown");
    process.exit(1);
  }
}
process.once("SIGTERM", () => void shutdown("SIGTERM"));
process.once("SIGINT", () => void shutdown("SIGINT"));
