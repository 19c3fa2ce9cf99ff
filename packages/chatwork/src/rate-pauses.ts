/** Until when Chatwork told this instance to hold off, per rate window key (epoch ms). */
export class RatePauses {
  private readonly until = new Map<string, number>();

  pause(key: string, untilMs: number): void {
    if (untilMs > (this.until.get(key) ?? 0)) this.until.set(key, untilMs);
  }

  /** How long before all of these windows may be used again; 0 when none is paused. */
  remainingMs(keys: readonly string[], now: number): number {
    let wait = 0;
    for (const key of keys) {
      const until = this.until.get(key);
      if (until === undefined) continue;
      if (until <= now) this.until.delete(key);
      else wait = Math.max(wait, until - now);
    }
    return wait;
  }
}
