import type { FastifyPluginAsync } from "fastify";
import type { Registry } from "prom-client";

export interface HealthOptions {
  /** Each dependency's reachability: the shared store, the database. */
  checks: Record<string, () => Promise<unknown>>;
  registry: Registry;
}

/** `/healthz` says the process answers; `/readyz` that what it depends on answers too; `/metrics` for Prometheus. */
export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, { checks, registry }) => {
  app.get("/healthz", { logLevel: "warn" }, async () => ({ ok: true }));

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
