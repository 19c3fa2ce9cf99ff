/** Polls `check` every 200 ms until it holds; throws `failure` after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, failure: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(failure);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
