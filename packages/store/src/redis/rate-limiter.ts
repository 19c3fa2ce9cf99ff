import { randomUUID } from "node:crypto";
import type { RateLimiter, RateWindow } from "@resident/core";
import type { Result } from "ioredis";
import type { RedisClient } from "./connection.ts";
import { storeCall } from "./store-call.ts";

/*
 * A sliding-window log per key: a sorted set of the times slots were taken. One script checks every window of a
 * take and takes a slot in all of them or in none, timed by the Redis server's clock so instances with skewed
 * clocks agree. Same arithmetic as MemoryRateLimiter.
 * KEYS: one per window · ARGV: limit and window ms per key, then a member id unique to this take.
 */
const take = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = 0
for i, key in ipairs(KEYS) do
  local limit, window = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local blocking = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    wait = math.max(wait, tonumber(blocking[2]) + window - now)
  end
end
if wait > 0 then return wait end
local member = now .. ':' .. ARGV[#ARGV]
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, ARGV[2 * i])
end
return 0
`;

declare module "ioredis" {
  interface RedisCommander<Context> {
    rsdTakeRate(keyCount: number, ...keysThenArgs: (string | number)[]): Result<number, Context>;
  }
}

export interface RedisRateLimiterOptions {
  /** Prepended to every key. Default `rsd:`. */
  prefix?: string;
}

/**
 * RateLimiter on Redis. A take touches several keys in one script, and on Redis Cluster those must share a hash
 * slot, so every window lives under the one hash tag `{rate}`: rate-limit traffic is a few commands per outbound
 * message, well within one shard, and a single shard also means a single clock.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly prefix: string;

  constructor(
    private readonly client: RedisClient,
    options: RedisRateLimiterOptions = {},
  ) {
    this.prefix = `${options.prefix ?? "rsd:"}{rate}:`;
    client.defineCommand("rsdTakeRate", { lua: take });
  }

  take(windows: RateWindow[]): Promise<number> {
    if (windows.length === 0) return Promise.resolve(0);
    const keys = windows.map((window) => this.prefix + window.key);
    const args = windows.flatMap((window) => [window.limit, window.windowMs]);
    return storeCall("rate take", () => this.client.rsdTakeRate(keys.length, ...keys, ...args, randomUUID()));
  }
}
