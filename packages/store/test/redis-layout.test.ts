import { setTimeout as sleep } from "node:timers/promises";
import { CorruptRecordError } from "@resident/core";
import { RedisServer } from "@resident/testkit/processes";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  connectRedis,
  RedisClaimStore,
  type RedisClient,
  RedisConversationMemory,
  RedisRateLimiter,
  RedisStatsStore,
} from "../src/index.ts";

/** What the Redis store leaves in Redis: the documented key layout and value encoding, and a TTL on every key. */
describe("Redis key layout", () => {
  let server: RedisServer;
  let client: RedisClient;
  beforeAll(async () => {
    server = await RedisServer.start();
    client = connectRedis(server.url, "command");
    await vi.waitFor(() => client.ping(), { timeout: 10_000 });
  });
  afterAll(async () => {
    await client.quit();
    await server.dispose();
  });

  it("appends the threads of one turn together, a thread whose key Redis refuses failing alone", async () => {
    const memory = new RedisConversationMemory(client, { prefix: "together:" });
    await client.set("together:conversation:not-a-list", "x");
    const outcomes = await Promise.allSettled([
      memory.append("conversation:a", [{ role: "user", text: "a" }], 20, 60_000),
      memory.append("conversation:not-a-list", [{ role: "user", text: "b" }], 20, 60_000),
      memory.append("conversation:c", [{ role: "user", text: "c" }], 20, 60_000),
    ]);
    expect(outcomes.map(({ status }) => status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(CorruptRecordError);
    expect(await memory.recent("conversation:c", 5)).toEqual([{ role: "user", text: "c" }]);
  });

  it("keeps every key under the prefix, encoded as documented, and every key expires", async () => {
    const claims = new RedisClaimStore(client, { prefix: "layout:" });
    const memory = new RedisConversationMemory(client, { prefix: "layout:" });
    const stats = new RedisStatsStore(client, { prefix: "layout:" });
    const limiter = new RedisRateLimiter(client, { prefix: "layout:" });
    const held = await claims.claim("event:ws-1:Ev1", "job:owner", 10_000);
    const sent = await claims.claim("reply:ws-1:C1:171.2", "job:2", 10_000);
    if (!held.claimed || !sent.claimed) throw new Error("not claimed");
    await claims.commit("reply:ws-1:C1:171.2", sent.token, "msg:9", 60_000);
    await memory.append("conversation:ws-1:C1:171.2", [{ role: "user", text: "hi" }], 20, 60_000);
    const at = Date.UTC(2030, 0, 1, 10, 17, 42);
    vi.setSystemTime(at);
    await stats.add([
      {
        tenantId: "t-1",
        workspaceId: "ws-1",
        counts: { events: 1, failures: 1 },
        activity: { lastEventAt: at, lastError: { at, stage: "send", message: "channel_not_found" } },
      },
    ]);
    vi.useRealTimers();
    await limiter.take([{ key: "token:xoxb", limit: 5, windowMs: 1000 }]);

    const minute = Date.UTC(2030, 0, 1, 10, 17);
    const hour = Date.UTC(2030, 0, 1, 10);
    const keys = (await client.keys("layout:*")).sort();
    expect(keys).toEqual([
      "layout:conversation:ws-1:C1:171.2",
      "layout:event:ws-1:Ev1",
      "layout:reply:ws-1:C1:171.2",
      "layout:stats:{t-1}:workspaces",
      "layout:stats:{t-1}:ws:ws-1",
      "layout:stats:{t-1}:ws:ws-1:activity",
      "layout:stats:{t-1}:ws:ws-1:error",
      `layout:stats:{t-1}:ws:ws-1:hour:${hour}`,
      `layout:stats:{t-1}:ws:ws-1:minute:${minute}`,
      "layout:{rate}:token:xoxb",
    ]);
    for (const key of keys) expect(await client.pttl(key), key).toBeGreaterThan(0);
    expect(await client.get("layout:event:ws-1:Ev1")).toBe(`i:${held.token}:job:owner`);
    expect(await client.get("layout:reply:ws-1:C1:171.2")).toBe("d:msg:9");
    // A minute's bucket lives 25 hours from its start, an hour's 8 days.
    expect(await client.pexpiretime(`layout:stats:{t-1}:ws:ws-1:minute:${minute}`)).toBe(minute + 25 * 3_600_000);
    expect(await client.pexpiretime(`layout:stats:{t-1}:ws:ws-1:hour:${hour}`)).toBe(hour + 8 * 86_400_000);
    expect(await client.zrange("layout:stats:{t-1}:ws:ws-1:activity", "0", "-1", "WITHSCORES")).toEqual([
      "event",
      String(at),
    ]);
    expect(await client.zrange("layout:stats:{t-1}:ws:ws-1:error", "0", "-1")).toEqual([
      JSON.stringify({ stage: "send", message: "channel_not_found" }),
    ]);
  });

  it("forgets a workspace's counters, activity and series once they have gone unchanged for the stats TTL", async () => {
    const stats = new RedisStatsStore(client, { prefix: "stats-ttl:", statsTtlMs: 200 });
    const activity = { lastEventAt: Date.now(), lastError: { at: Date.now(), stage: "agent" as const, message: "x" } };
    await stats.add([{ tenantId: "t-1", workspaceId: "ws-quiet", counts: { events: 1 }, activity }]);
    expect(Object.keys(await stats.read("t-1"))).toEqual(["ws-quiet"]);
    await sleep(400);
    expect(await stats.read("t-1")).toEqual({});
    expect(await client.keys("stats-ttl:*")).toEqual([]);
  });
});
