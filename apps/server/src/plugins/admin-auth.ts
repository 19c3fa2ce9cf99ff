import rateLimit from "@fastify/rate-limit";
import type { RedisClient } from "@resident/store";
import type { AdminTokens, Principal } from "@resident/tenants";
import type { FastifyInstance } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal;
  }
}

export interface FailedSignInLimit {
  /** Failed sign-ins one client address may make per window; the next request is refused with 429. */
  max: number;
  windowMs: number;
}

export interface AdminAuthOptions {
  tokens: AdminTokens;
  failedSignIns: FailedSignInLimit;
  /** Counts failures across every instance (the shared Redis); without it each instance counts its own. */
  redis?: RedisClient;
}

/**
 * Bearer authentication for this scope: the token decides `request.principal`, or the answer is 401. Only failures
 * count against a client address, so an admin using a valid token is never slowed down; an address past its limit
 * gets 429 before any token is looked at, so guessing learns nothing until its window ends. A Redis outage lets
 * requests through rather than locking every admin out.
 */
export async function useAdminAuth(app: FastifyInstance, options: AdminAuthOptions): Promise<void> {
  const { tokens, failedSignIns, redis } = options;
  await app.register(rateLimit, {
    global: false,
    max: failedSignIns.max,
    timeWindow: failedSignIns.windowMs,
    redis,
    nameSpace: "rsd:failed-sign-ins:",
    skipOnError: true,
  });
  const failures = app.createRateLimit();
  app.decorateRequest("principal");

  app.addHook("onRequest", async (request, reply) => {
    const counted = await failures(request, { increment: false });
    if (!counted.isAllowed && counted.remaining === 0) {
      return reply
        .code(429)
        .header("retry-after", String(counted.ttlInSeconds))
        .send({ error: `too many failed sign-ins; try again in ${counted.ttlInSeconds} s` });
    }
    const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? "")?.[1];
    const principal = bearer ? await tokens.authenticate(bearer) : undefined;
    if (!principal) {
      await failures(request);
      return reply
        .code(401)
        .header("www-authenticate", 'Bearer realm="resident admin"')
        .send({ error: "a valid admin token is required" });
    }
    request.principal = principal;
  });
}
