import type { RateLimiter, RateWindow } from "../ports/rate-limiter.ts";

/** Sliding-window log per key, within one process. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  async take(windows: RateWindow[]): Promise<number> {
    const now = this.now();
    let wait = 0;
    for (const { key, limit, windowMs } of windows) {
      const log = (this.logs.get(key) ?? []).filter((at) => at > now - windowMs);
      this.logs.set(key, log);
      if (log.length >= limit) wait = Math.max(wait, (log[log.length - limit] as number) + windowMs - now);
    }
    if (wait > 0) return wait;
    for (const { key } of windows) this.logs.get(key)?.push(now);
    return 0;
  }
}
