/** The shared store (Redis) could not be reached or answered with an error. */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** The request did not come from the platform: bad or missing signature or token, stale timestamp. → 401 */
export class VerificationError extends Error {
  override name = "VerificationError";
}

/** The request is signed but its body cannot be understood. → 400 */
export class MalformedPayloadError extends Error {
  override name = "MalformedPayloadError";
}

/** Credentials given for a workspace were rejected by the platform or do not fit its schema. */
export class InvalidCredentialsError extends Error {
  override name = "InvalidCredentialsError";
}

/** The platform asked us to slow down; nothing was posted. Safe to retry after `retryAfterMs`. */
export class RateLimitedError extends Error {
  override name = "RateLimitedError";
  constructor(
    readonly retryAfterMs: number,
    message = `rate limited, retry after ${retryAfterMs} ms`,
  ) {
    super(message);
  }
}

/** The platform definitely did not post the message (rejected, or the request never left). Safe to retry. */
export class SendRejectedError extends Error {
  override name = "SendRejectedError";
}

/**
 * The platform refused the post for a reason that a retry cannot change: the bot is not in the channel, the channel
 * is archived or gone, the token is revoked. Nothing was posted; the job ends at once, with no further attempt.
 */
export class PermanentSendError extends SendRejectedError {
  override name = "PermanentSendError";
}

/** The request may or may not have posted the message (timeout, 5xx after sending). Never resend blindly. */
export class OutcomeUnknownError extends Error {
  override name = "OutcomeUnknownError";
}

/** The platform no longer streams this message (it expired, or refused a write): complete it by an update. */
export class StreamEndedError extends Error {
  override name = "StreamEndedError";
}

/** This job's earlier attempt still holds the reply lease (it stalled or died); try again once the lease lapses. */
export class ReplyLeaseHeldError extends Error {
  override name = "ReplyLeaseHeldError";
}

/** A lease we held expired or was taken over; the work under it must stop without committing. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

/** The database (PostgreSQL) could not be reached; a query with an error of its own is not this. → 503 */
export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
}

/**
 * Whether an error says that a store the work needs is away (Redis or PostgreSQL), rather than that the work failed:
 * a queued job that fails so never uses up its last attempt, for it would have been lost to the outage.
 */
export function isStoreAway(error: unknown): boolean {
  return error instanceof StoreUnavailableError || error instanceof DatabaseUnavailableError;
}

/** A stored record could not be read: a data error, to be looked into, not an outage to fail over from. */
export class CorruptRecordError extends Error {
  override name = "CorruptRecordError";
}
