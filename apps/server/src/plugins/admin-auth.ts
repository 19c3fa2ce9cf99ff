import { setTimeout as sleep } from "node:timers/promises";
import rateLimit from "@fastify/rate-limit";
import type { RedisClient } from "@resident/store";
import { type AdminTokens, type Principal, tokenStart } from "@resident/tenants";
import type { FastifyInstance, FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal;
  }
}

export interface FailedSignInLimit {
  /** Failed sign-ins one client address, or one token start, may make per window before attempts are slowed. */
  max: number;
  windowMs: number;
  /** How long each attempt past the limit waits before its token is even looked at. */
  slowdownMs: number;
}

export interface AdminAuthOptions {
  tokens: AdminTokens;
  failedSignIns: FailedSignInLimit;
  /** Counts failures across every instance (the shared Redis); without it each instance counts its own. */
  redis?: RedisClient;
}

/** On any slowed answer, a valid token's too: the seconds until its window ends, so that a client can tell why. */
const slowedHeader = "x-sign-in-slowed";

const bearerOf = (request: FastifyRequest) => /^Bearer (\S+)$/.exec(request.headers.authorization ?? "")?.[1];

/**
 * Bearer authentication for this scope: the token decides `request.principal`, or the answer is 401. Failed
 * sign-ins are counted per client address (as TRUSTED_PROXIES lets it be known) and per token start (the first
 * characters, which a guesser aiming at one known token keeps fixed). Past either limit, every attempt waits
 * `slowdownMs` before its token is looked at, and a failing one is answered 429; a token that verifies is always let
 * in — so nobody can lock an admin out by failing on purpose, from a shared address or with a token's start, and
 * guessing gets no faster by being answered early. A Redis outage lets requests through unslowed.
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
  const byAddress = app.createRateLimit({ keyGenerator: (request) => `address:${request.ip}` });
  const byTokenStart = app.createRateLimit({
    keyGenerator: (request) => `token:${tokenStart(bearerOf(request) ?? "")}`,
  });
  app.decorateRequest("principal");

  app.addHook("onRequest", async (request, reply) => {
    const bearer = bearerOf(request);
    const limits = bearer ? [byAddress, byTokenStart] : [byAddress];
    const counts = await Promise.all(limits.map((limit) => limit(request, { increment: false })));
    const past = counts.flatMap((count) => (!count.isAllowed && count.remaining === 0 ? [count.ttlInSeconds] : []));
    const slowedForSeconds = past.length > 0 ? Math.max(...past) : 0;
    if (slowedForSeconds > 0) {
      await sleep(failedSignIns.slowdownMs);
      reply.header(slowedHeader, String(slowedForSeconds));
    }
    const principal = bearer ? await tokens.authenticate(bearer) : undefined;
    if (principal) {
      request.principal = principal;
      return;
    }
    await Promise.all(limits.map((limit) => limit(request)));
    if (slowedForSeconds > 0) {
      return reply
        .code(429)
        .header("retry-after", String(slowedForSeconds))
        .send({ error: `too many failed sign-ins: each attempt is slowed down for the next ${slowedForSeconds} s` });
    }
    return reply
      .code(401)
      .header("www-authenticate", 'Bearer realm="resident admin"')
      .send({ error: "a valid admin token is required" });
  });
}
