import type { PlatformDescriptor } from "@resident/core";
import type { Logger } from "pino";
import { buildApp, buildInternalApp } from "./app.ts";
import { type Config, httpDrainMs } from "./config.ts";
import { platforms } from "./platforms.ts";
import { createRuntime, type Runtime } from "./runtime.ts";
import { startTracing } from "./tracing.ts";

export interface Service {
  url: string;
  /** Where /metrics and /readyz are served when METRICS_PORT is set. */
  metricsUrl?: string;
  runtime: Runtime;
  /** The operator token generated on the very first start (no ADMIN_TOKEN), to be shown once; else undefined. */
  generatedOperatorToken?: string;
  close(): Promise<void>;
}

/** Opens everything, serves HTTP, then starts the workers: an instance is reachable before it takes jobs. */
export async function startService(
  config: Config,
  logger: Logger,
  descriptors: readonly PlatformDescriptor[] = platforms,
): Promise<Service> {
  const tracing = startTracing(config);
  const runtime = await createRuntime(config, logger, descriptors);
  const generatedOperatorToken = await runtime.tenants.tokens.ensureOperatorToken(config.adminToken);
  const app = buildApp(runtime, logger);
  const internal = config.metricsPort === undefined ? undefined : buildInternalApp(runtime, logger);
  const close = async () => {
    await Promise.all([closeHttp(app), internal && closeHttp(internal)]);
    await runtime.close();
    // Last, so the spans of the jobs that finished while closing are exported too.
    await tracing?.close();
  };
  let url: string;
  let metricsUrl: string | undefined;
  try {
    url = await app.listen({ port: config.port, host: config.host });
    metricsUrl = await internal?.listen({ port: config.metricsPort, host: config.host });
  } catch (error) {
    // A port that is taken: what was opened is closed again, so a caller that tries another port leaks nothing.
    await close();
    throw error;
  }
  runtime.startWorkers();
  runtime.startReceivers();
  logger.info({ role: config.role, publicUrl: config.publicUrl }, "resident is up");
  return { url, metricsUrl, runtime, generatedOperatorToken, close };
}

/** Stops taking requests and waits for those in flight, for `httpDrainMs` at most; then cuts their connections. */
async function closeHttp(app: { server: { closeAllConnections(): void }; close(): PromiseLike<unknown> }) {
  const cut = setTimeout(() => app.server.closeAllConnections(), httpDrainMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
