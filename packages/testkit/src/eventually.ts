/**
 * Polls until `check` passes (returns without throwing, or returns true), or fails with its last error after
 * `timeoutMs`. Tests wait on conditions, never on the clock: machines are shared and noisy.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const result = await check();
      if (result !== false) return result;
      throw new Error("condition is false");
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Lets `ms` pass, for tests that prove something does NOT happen (no second reply) within a generous time. */
export function settle(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
