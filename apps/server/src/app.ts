import helmet from "@fastify/helmet";
import Fastify from "fastify";
import type { Logger } from "pino";
import { adminApi } from "./plugins/admin-api.ts";
import { adminConsole } from "./plugins/admin-console.ts";
import { internalRoutes, livenessRoute } from "./plugins/health.ts";
import { installCallback } from "./plugins/install-callback.ts";
import { webhookRoutes } from "./plugins/webhooks.ts";
import { requestLoggers } from "./request-logger.ts";
import type { Runtime } from "./runtime.ts";
import { securityHeaders } from "./security-headers.ts";

/** Webhook and admin bodies above this are refused with 413 before they are read further. */
const bodyLimit = 1024 * 1024;

/**
 * The public HTTP face of an instance: liveness for everyone; webhooks, the admin API and the admin console unless
 * ROLE=worker, the last two under helmet's headers; readiness and metrics too unless METRICS_PORT takes them away.
 * X-Forwarded-For is believed only from TRUSTED_PROXIES (fastify's trustProxy list: addresses or CIDRs); from any
 * other peer the client address is the socket's, so no client can choose the address it is counted or logged by.
 */
export function buildApp(runtime: Runtime, logger: Logger) {
  const { trustedProxies, metricsPort } = runtime.config;
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit,
    trustProxy: trustedProxies.length > 0 ? trustedProxies : false,
    requestIdHeader: "x-request-id",
    childLoggerFactory: requestLoggers,
    // While it closes, an instance still answers what reaches it (the runtime closes after the HTTP server), with
    // `Connection: close` so the proxy takes its next request elsewhere. Fastify's default 503 reached a platform
    // whenever the proxy reused a connection whose last response had finished during the close — a delivery lost in a
    // rolling restart on a platform that does not redeliver.
    return503OnClosing: false,
  });

  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "request failed");
    return reply.code(status).send({ error: status >= 500 ? "internal error" : error.message });
  });

  app.register(livenessRoute);
  if (metricsPort === undefined) app.register(internalRoutes, internalOptions(runtime));
  if (runtime.config.role !== "worker") {
    const { distributions } = runtime;
    app.register(webhookRoutes, { ingest: runtime.ingest, platforms: runtime.platforms.descriptors, distributions });
    app.register(async (browser) => {
      await browser.register(helmet, securityHeaders);
      await browser.register(installCallback, { distributions });
    });
    // Browser security headers belong to what a browser loads; the platforms' webhook answers skip their cost.
    app.register(
      async (admin) => {
        await admin.register(helmet, securityHeaders);
        await admin.register(adminApi, {
          prefix: "/api",
          registry: runtime.tenants.registry,
          tokens: runtime.tenants.tokens,
          toolServers: runtime.tenants.toolServers,
          platforms: runtime.platforms,
          directory: runtime.tenants.directory,
          stats: runtime.shared.stats,
          budgets: runtime.tenants.budgets,
          budgetGuard: runtime.budgets,
          receiverSlots: runtime.receiverSlots,
          distributions,
          feedback: runtime.tenants.feedback,
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

/** METRICS_PORT's server: readiness, metrics and liveness, for Prometheus and the orchestrator only. */
export function buildInternalApp(runtime: Runtime, logger: Logger) {
  const app = Fastify({ loggerInstance: logger });
  app.register(livenessRoute);
  app.register(internalRoutes, internalOptions(runtime));
  return app;
}

function internalOptions(runtime: Runtime) {
  return {
    checks: { store: () => runtime.shared.ping(), database: () => runtime.tenants.ping().then(assertTrue) },
    // Either shared store is enough to take deliveries in and answer them (packages/core/README.md, "When a store is
    // away"): an instance is pulled from its load balancer only when both are away.
    readyWhen: (up: Record<string, boolean>) => Boolean(up.store || up.database),
    registry: runtime.metrics.registry,
  };
}

function assertTrue(up: boolean): void {
  if (!up) throw new Error("down");
}
