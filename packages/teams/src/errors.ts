import {
  connectionErrorCode,
  failedBeforeSending,
  OutcomeUnknownError,
  PermanentSendError,
  SendRejectedError,
  StreamEndedError,
} from "@resident/core";

/** Microsoft asks bots to back off and retry these (rate-limit.md); the reply was not posted. */
const throttledStatuses = new Set([429, 412, 502, 504]);

export function isThrottled(status: number): boolean {
  return throttledStatuses.has(status);
}

/** A post that threw before Teams answered: never sent (safe to retry), or sent without an answer (unknown). */
export function toTransportError(error: unknown): Error {
  const code = connectionErrorCode(error);
  if (failedBeforeSending(error)) return new SendRejectedError(`could not reach Teams (${code})`, { cause: error });
  const timedOut = error instanceof Error && error.name === "TimeoutError";
  const reason = timedOut ? "timed out" : (code ?? String(error));
  return new OutcomeUnknownError(`the reply was sent but Teams did not answer: ${reason}`, { cause: error });
}

/**
 * A refusal that is not a throttle: a 5xx may have posted; anything else did not. The bot removed from the
 * conversation (403) or the conversation gone (404) is met again by any retry.
 */
export function toRefusalError(status: number, detail: string): Error {
  // Teams refuses streaming outside personal chats, and a stream past its time, with a ContentStream… code.
  if (status < 500 && /ContentStream/.test(detail)) return new StreamEndedError(`Teams ended the stream: ${detail}`);
  if (status >= 500) return new OutcomeUnknownError(`Teams answered ${status} after the reply was sent: ${detail}`);
  if (status === 403 || status === 404) {
    return new PermanentSendError(`Teams refused the reply for good: ${status} ${detail}`);
  }
  return new SendRejectedError(`Teams refused the reply: ${status} ${detail}`);
}
