/** A sliding-window request counter per key, as the fake Chatwork enforces its published limits. */
export class SlidingWindow {
  private readonly log = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Counts a request at `now` unless the window is full; says whether it was let through. */
  admit(key: string, now: number): boolean {
    const recent = this.recent(key, now);
    if (recent.length >= this.limit) return false;
    recent.push(now);
    return true;
  }

  remaining(key: string, now: number): number {
    return Math.max(0, this.limit - this.recent(key, now).length);
  }

  /** When the oldest counted request leaves the window (epoch ms); `now` when nothing is counted. */
  resetAt(key: string, now: number): number {
    const oldest = this.recent(key, now)[0];
    return oldest === undefined ? now : oldest + this.windowMs;
  }

  private recent(key: string, now: number): number[] {
    const recent = (this.log.get(key) ?? []).filter((at) => at > now - this.windowMs);
    this.log.set(key, recent);
    return recent;
  }
}
