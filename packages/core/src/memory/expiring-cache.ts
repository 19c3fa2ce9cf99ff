import { LRUCache } from "lru-cache";

/**
 * An LRU cache whose entries lapse after the TTL each `set` gives, read against `now` (a test may pass its own
 * clock). With a bound, the least recently written entry goes first (read with `peek`, which keeps the order);
 * without one, lapsed entries are dropped by lru-cache's timers.
 */
export function expiringCache<V extends {}>(now: () => number, max?: number): LRUCache<string, V> {
  return new LRUCache<string, V>({
    ...(max === undefined ? { ttl: 60_000, ttlAutopurge: true } : { max }),
    ttlResolution: 0,
    // lru-cache takes an entry written at time 0 for one without a TTL; a clock that starts at 0 is shifted past it.
    perf: { now: () => now() + 1 },
  });
}
