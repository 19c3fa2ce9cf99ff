import type { FastifyPluginAsync } from "fastify";
import type { Registry } from "prom-client";

export interface InternalRoutesOptions {
  /** Each dependency's reachability: the shared store, the database. */
  checks: Record<string, () => Promise<unknown>>;
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
export const internalRoutes: FastifyPluginAsync<InternalRoutesOptions> = async (app, { checks, registry }) => {
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
    const ready = results.every(([, up]) => up);
    return reply.code(ready ? 200 : 503).send({ ok: ready, checks: Object.fromEntries(results) });
  });

  app.get("/metrics", { logLevel: "warn" }, async (_request, reply) => {
    return reply.type(registry.contentType).send(await registry.metrics());
  });
};
