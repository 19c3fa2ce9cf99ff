import { type RateLimiter, type RateWindow, StoreUnavailableError } from "@resident/core";

/**
 * The shared limiter, and this instance's own while the shared one is unreachable: during a store outage the
 * fail-open lane still answers, and a per-instance limit is better than none (or than failing every send).
 */
export class FailoverRateLimiter implements RateLimiter {
  constructor(
    private readonly shared: RateLimiter,
    private readonly local: RateLimiter,
  ) {}

  async take(windows: RateWindow[]): Promise<number> {
    try {
      return await this.shared.take(windows);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return this.local.take(windows);
      throw error;
    }
  }
}
