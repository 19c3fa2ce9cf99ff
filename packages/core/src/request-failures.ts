/** Socket errors that mean a request never left this host: nothing it asked for can have happened. */
const beforeSending = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The socket-level code of a failed request: fetch wraps it ("fetch failed" → cause { code }), so causes are walked. */
export function connectionErrorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/**
 * True when the request failed before a byte was written, so a send may be retried (SendRejectedError); any other
 * failure after the request began may have posted, and is an unknown outcome.
 */
export function failedBeforeSending(error: unknown): boolean {
  const code = connectionErrorCode(error);
  return code !== undefined && beforeSending.has(code);
}
