import type { UsageMeter } from "../ports/usage-meter.ts";
import { expiringCache } from "./expiring-cache.ts";

/** UsageMeter within one process, bounded (the least recently written counter goes first). */
export class MemoryUsageMeter implements UsageMeter {
  private readonly counts;

  constructor(maxKeys = 100_000, now: () => number = Date.now) {
    this.counts = expiringCache<number>(now, maxKeys);
  }

  async add(counts: { key: string; by: number }[], ttlMs: number): Promise<void> {
    for (const { key, by } of counts) this.counts.set(key, (this.counts.peek(key) ?? 0) + by, { ttl: ttlMs });
  }

  async read(keys: string[]): Promise<number[]> {
    return keys.map((key) => this.counts.peek(key) ?? 0);
  }
}
