import {
  DatabaseUnavailableError,
  failureSummary,
  InvalidCredentialsError,
  type Platform,
  StoreUnavailableError,
} from "@resident/core";
import { AccessDeniedError, InvalidInputError, UnknownTenantError } from "@resident/tenants";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

/** Why a platform would not take a workspace's credentials: a stable reason for the console, and the platform's words. */
export interface ConnectFailure {
  /** `${platform} ${reason in words}: ${detail}`, for people and clients that show one line. */
  error: string;
  reason: "refused" | "unreachable";
  detail: string;
}

/** The platform refused, or could not check, the credentials given for a workspace. → 422 */
export class CredentialsRejectedError extends Error {
  override name = "CredentialsRejectedError";
  constructor(readonly failure: ConnectFailure) {
    super(failure.error);
  }
}

/** The admin API's errors as answers: named errors to their status, anything unexpected to a bare 500. */
export function answerAdminError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof InvalidInputError) return reply.code(400).send({ error: "invalid input", issues: error.issues });
  if (error instanceof UnknownTenantError) return reply.code(404).send({ error: "not found" });
  if (error instanceof AccessDeniedError) return reply.code(403).send({ error: error.message });
  if (error instanceof CredentialsRejectedError) return reply.code(422).send(error.failure);
  if (error instanceof DatabaseUnavailableError) {
    return reply.code(503).header("retry-after", "5").send({
      error: "the tenant database (PostgreSQL) cannot be reached right now; nothing was changed, try again shortly",
    });
  }
  if (error instanceof StoreUnavailableError) {
    return reply
      .code(503)
      .header("retry-after", "5")
      .send({ error: "the shared store (Redis) cannot be reached right now; try again shortly" });
  }
  if (error.validation || error.statusCode === 400) {
    return reply.code(400).send({ error: "invalid input", issues: [error.message] });
  }
  if (error.statusCode && error.statusCode < 500) return reply.code(error.statusCode).send({ error: error.message });
  request.log.error({ err: error }, "admin API failure");
  return reply.code(500).send({ error: "internal error" });
}

/** What a failed connection check tells an admin: the platform's own words, with no credential in them. */
export function connectFailure(platform: Platform, error: unknown, credentials: unknown): ConnectFailure {
  const reason = error instanceof InvalidCredentialsError ? "refused" : "unreachable";
  const detail = failureSummary(error, credentials);
  const words = reason === "refused" ? "refused these credentials" : "could not be reached";
  return { error: `${platform} ${words}: ${detail}`, reason, detail };
}
