import helmet from "@fastify/helmet";
import Fastify from "fastify";
import type { Logger } from "pino";
import { adminApi } from "./plugins/admin-api.ts";
import { adminConsole } from "./plugins/admin-console.ts";
import { healthRoutes } from "./plugins/health.ts";
import { webhookRoutes } from "./plugins/webhooks.ts";
import type { Runtime } from "./runtime.ts";
import { securityHeaders } from "./security-headers.ts";

/** Webhook and admin bodies above this are refused with 413 before they are read further. */
export const bodyLimit = 1024 * 1024;

/**
 * The HTTP face of an instance: health for everyone; webhooks, the admin API and the admin console unless
 * ROLE=worker, the last two under helmet's headers. One proxy (nginx) is trusted: the client address is the one it saw, not one a client claims.
 */
export function buildApp(runtime: Runtime, logger: Logger) {
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit,
    trustProxy: trustOneProxy,
    requestIdHeader: "x-request-id",
  });

  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "request failed");
    return reply.code(status).send({ error: status >= 500 ? "internal error" : error.message });
  });

  app.register(healthRoutes, {
    checks: { store: () => runtime.shared.ping(), database: () => runtime.tenants.ping().then(assertTrue) },
    registry: runtime.metrics.registry,
  });
  if (runtime.config.role !== "worker") {
    app.register(webhookRoutes, { ingest: runtime.ingest, platforms: [...runtime.adapters.keys()] });
    // Browser security headers belong to what a browser loads; the platforms' webhook answers skip their cost.
    app.register(
      async (admin) => {
        await admin.register(helmet, securityHeaders);
        await admin.register(adminApi, {
          prefix: "/api",
          registry: runtime.tenants.registry,
          tokens: runtime.tenants.tokens,
          adapters: runtime.adapters,
          directory: runtime.tenants.directory,
          stats: runtime.shared.stats,
          publicUrl: runtime.config.publicUrl,
          redis: runtime.shared.redis,
        });
        await admin.register(adminConsole);
      },
      { prefix: "/admin" },
    );
  }
  return app;
}

/** Hop 0 is the peer that connected: nginx in a deployment, whose X-Forwarded-For entry is the client's address. */
function trustOneProxy(_address: string, hop: number): boolean {
  return hop < 1;
}

function assertTrue(up: boolean): void {
  if (!up) throw new Error("down");
}
