import type { SharedCache } from "../ports/shared-cache.ts";
import { expiringCache } from "./expiring-cache.ts";

/** SharedCache within one process, bounded (the least recently written entry goes first). */
export class MemoryCache implements SharedCache {
  private readonly entries;

  constructor(maxEntries = 10_000, now: () => number = Date.now) {
    this.entries = expiringCache<string>(now, maxEntries);
  }

  async get(key: string): Promise<string | undefined> {
    return this.entries.peek(key);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(key, value, { ttl: ttlMs });
  }
}
