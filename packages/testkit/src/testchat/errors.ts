import {
  failedBeforeSending,
  OutcomeUnknownError,
  RateLimitedError,
  retryAfterMs,
  SendRejectedError,
} from "@resident/core";

/** A post's failure as core's send errors: was anything posted? */
export async function toSendError(response: Response): Promise<Error> {
  if (response.status === 429) return new RateLimitedError(retryAfterMs(response.headers.get("retry-after")) ?? 1_000);
  if (response.status >= 500)
    return new OutcomeUnknownError(`Testchat answered ${response.status}; it may have posted`);
  return new SendRejectedError(`Testchat refused the post: ${response.status} ${await response.text()}`);
}

/** A post that threw before an answer: never sent, or sent without an answer. */
export function toTransportError(error: unknown): Error {
  if (failedBeforeSending(error)) return new SendRejectedError("could not reach Testchat", { cause: error });
  return new OutcomeUnknownError("Testchat did not answer the post", { cause: error });
}
