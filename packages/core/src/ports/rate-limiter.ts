export interface RateWindow {
  /** What is limited (a token, a room); scoped by the caller. */
  key: string;
  limit: number;
  windowMs: number;
}

/** Sliding-window limits shared by every instance, so a per-room limit holds for the whole cluster. */
export interface RateLimiter {
  /**
   * Takes one slot in every window at once, or in none: resolves 0 when taken, else how many ms to wait before
   * the fullest window has room again.
   */
  take(windows: RateWindow[]): Promise<number>;
}
