import { APIConnectionError, APIConnectionTimeoutError, APIError, RateLimitError } from "@anthropic-ai/sdk";
import { RateLimitedError, retryAfterMs } from "@resident/core";

/** The LLM could not give an answer: the job fails and the queue retries it. `status` is the API's, when it answered. */
export class AgentError extends Error {
  override name = "AgentError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface FailureContext {
  apiKey: string;
  /** Where requests go, for "could not reach" messages. */
  origin: string;
  timeoutMs: number;
}

/** Used when a 429 names no wait; Anthropic normally sends retry-after. */
const unknownRetryAfterMs = 5_000;

/**
 * Turns whatever the SDK threw into our own error with a clear message. The SDK error is not kept as `cause`: its
 * body is whatever the far end sent, and the message we build is scrubbed of the key.
 */
export function agentFailure(error: unknown, context: FailureContext): Error {
  const scrub = (message: string) => message.replaceAll(context.apiKey, "[redacted]");
  if (error instanceof RateLimitError) {
    const waitMs = waitAfter429(error.headers);
    return new RateLimitedError(waitMs, scrub(`Anthropic rate limited the request (429), retry after ${waitMs} ms`));
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new AgentError(`Anthropic did not answer within ${context.timeoutMs} ms`);
  }
  if (error instanceof APIConnectionError) {
    return new AgentError(scrub(`could not reach Anthropic at ${context.origin}: ${rootCause(error)}`));
  }
  if (error instanceof APIError) {
    const hint = error.status === 401 ? " (check ANTHROPIC_API_KEY)" : "";
    const detail = error.apiMessage ?? "no error message";
    return new AgentError(scrub(`Anthropic answered ${error.status}: ${detail}${hint}`), error.status);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new AgentError(scrub(`the Anthropic request failed: ${message}`));
}

/** Anthropic's own retry-after-ms first, then the standard header. */
function waitAfter429(headers: Headers): number {
  const ms = Number(headers.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  return retryAfterMs(headers.get("retry-after")) ?? unknownRetryAfterMs;
}

/** "fetch failed" says nothing; the innermost cause says "connect ECONNREFUSED 127.0.0.1:4000". */
function rootCause(error: Error): string {
  let inner = error;
  while (inner.cause instanceof Error) inner = inner.cause;
  return inner.message;
}
