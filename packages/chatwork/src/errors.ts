import { failedBeforeSending, OutcomeUnknownError, SendRejectedError } from "@resident/core";

/** Chatwork's own error text: {"errors": ["…"]}. */
export function errorText(body: unknown): string {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  if (Array.isArray(errors) && errors.length > 0) return errors.map(String).join("; ");
  return typeof body === "string" && body !== "" ? body.slice(0, 200) : "no details";
}

/**
 * A request that failed without a usable answer: a read fails plainly; a post never sent may be retried; a post
 * that timed out or met a 5xx may have landed.
 */
export function requestFailure(method: "GET" | "POST", path: string, reason: string, cause?: unknown): Error {
  const message = `Chatwork ${method} ${path.split("?")[0]}: ${reason}`;
  if (method === "GET") return new Error(message, { cause });
  if (failedBeforeSending(cause)) return new SendRejectedError(`${message} (nothing was sent)`);
  return new OutcomeUnknownError(`${message}; the post may or may not have landed`);
}
