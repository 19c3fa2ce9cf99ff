/** Exponential backoff with "equal jitter": half the step is fixed, half random, so retries of a burst spread out. */
export function backoffDelay(attempt: number, baseMs: number, maxMs = 60_000, random = Math.random): number {
  const step = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}
