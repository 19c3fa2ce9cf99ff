import type { FastifyPluginAsync } from "fastify";
import type { Registry } from "prom-client";

export interface InternalRoutesOptions {
  /** Each dependency's reachability: the shared store, the database. */
  checks: Record<string, () => Promise<unknown>>;
  /** Which checks must pass for the instance to be ready. Default: all of them. */
  readyWhen?: (up: Record<string, boolean>) => boolean;
  registry: Registry;
}

/** `/healthz` says the process answers: for everyone, a load balancer's check included. */
export const livenessRoute: FastifyPluginAsync = async (app) => {
  app.get("/healthz", { logLevel: "warn" }, async () => ({ ok: true }));
};

/**
 * `/readyz` says what the instance depends on answers too; `/metrics` for Prometheus. Both tell an outsider about
 * the deployment, so they belong on METRICS_PORT, away from the public port.
 */
export const internalRoutes: FastifyPluginAsync<InternalRoutesOptions> = async (
  app,
  { checks, readyWhen, registry },
) => {
  app.get("/readyz", { logLevel: "warn" }, async (_request, reply) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => [
        name,
        await check().then(
          () => true,
          () => false,
        ),
      ]),
    );
    const up = Object.fromEntries(results) as Record<string, boolean>;
    const ready = readyWhen ? readyWhen(up) : results.every(([, reachable]) => reachable);
    return reply.code(ready ? 200 : 503).send({ ok: ready, checks: up });
  });

  app.get("/metrics", { logLevel: "warn" }, async (_request, reply) => {
    return reply.type(registry.contentType).send(await registry.metrics());
  });
};
