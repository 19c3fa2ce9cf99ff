import { MemoryRateLimiter } from "@resident/core";
import { RedisServer } from "@resident/testkit/processes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FailoverRateLimiter } from "../src/failover-rate-limiter.ts";
import { connectRedis, type RedisClient } from "../src/redis/connection.ts";
import { RedisRateLimiter } from "../src/redis/rate-limiter.ts";

const ready = (client: RedisClient) =>
  new Promise((resolve) => (client.status === "ready" ? resolve(undefined) : client.once("ready", resolve)));

describe("FailoverRateLimiter", () => {
  let redis: RedisServer;
  let client: RedisClient;
  beforeAll(async () => {
    redis = await RedisServer.start();
    client = connectRedis(redis.url, "command");
    await ready(client);
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.dispose();
  });

  it("limits through Redis, falls back to the local windows while Redis is down, and returns to Redis", async () => {
    const local = new MemoryRateLimiter();
    const limiter = new FailoverRateLimiter(new RedisRateLimiter(client), local);
    const window = [{ key: "room:1", limit: 2, windowMs: 60_000 }];
    expect([await limiter.take(window), await limiter.take(window)]).toEqual([0, 0]);
    expect(await limiter.take(window)).toBeGreaterThan(0);

    await redis.stop();
    expect(await limiter.take(window)).toBe(0);
    expect(await limiter.take(window)).toBe(0);
    expect(await limiter.take(window)).toBeGreaterThan(0);

    await redis.restart();
    await new Promise((resolve) => (client.status === "ready" ? resolve(undefined) : client.once("ready", resolve)));
    const other = [{ key: "room:2", limit: 1, windowMs: 60_000 }];
    expect(await limiter.take(other)).toBe(0);
    expect(await local.take(other)).toBe(0);
    expect(await limiter.take(other)).toBeGreaterThan(0);
  });
});
