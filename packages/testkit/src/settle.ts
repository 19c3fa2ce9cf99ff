/** Lets `ms` pass, for tests that prove something does NOT happen (no second reply) within a generous time. */
export function settle(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
