import { LRUCache } from "lru-cache";

/**
 * The wait after Teams throttles a conversation without a Retry-After: Microsoft's example for bots
 * (rate-limit.md, ExponentialBackoff(3, 2 s, 20 s, 1 s)) — 2 s, then 2 s + (2^n − 1) × 1 s ± 20 %, at most 20 s.
 * n counts the throttles this conversation met in a row; a sent reply starts it again.
 */
export class ThrottleBackoff {
  private readonly streaks = new LRUCache<string, number>({ max: 10_000, ttl: 5 * 60_000 });

  next(conversation: string): number {
    const streak = this.streaks.get(conversation) ?? 0;
    this.streaks.set(conversation, streak + 1);
    const step = 1_000 * (0.8 + Math.random() * 0.4);
    return Math.round(Math.min(2_000 + (2 ** streak - 1) * step, 20_000));
  }

  reset(conversation: string): void {
    this.streaks.delete(conversation);
  }
}
