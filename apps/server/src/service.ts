import type { Logger } from "pino";
import { buildApp } from "./app.ts";
import type { Config } from "./config.ts";
import { createRuntime, type Runtime } from "./runtime.ts";
import { startTracing } from "./tracing.ts";

export interface Service {
  url: string;
  runtime: Runtime;
  /** The operator token generated on the very first start (no ADMIN_TOKEN), to be shown once; else undefined. */
  generatedOperatorToken?: string;
  close(): Promise<void>;
}

/** Opens everything, serves HTTP, then starts the workers: an instance is reachable before it takes jobs. */
export async function startService(config: Config, logger: Logger): Promise<Service> {
  const tracing = startTracing(config);
  const runtime = await createRuntime(config, logger);
  const generatedOperatorToken = await runtime.tenants.tokens.ensureOperatorToken(config.adminToken);
  const app = buildApp(runtime, logger);
  const url = await app.listen({ port: config.port, host: config.host });
  runtime.startWorkers();
  logger.info({ role: config.role, publicUrl: config.publicUrl }, "resident is up");
  return {
    url,
    runtime,
    generatedOperatorToken,
    async close() {
      await app.close();
      await runtime.close();
      // Last, so the spans of the jobs that finished while closing are exported too.
      await tracing?.close();
    },
  };
}
