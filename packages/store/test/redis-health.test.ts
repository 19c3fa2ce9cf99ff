import { CorruptRecordError, StoreUnavailableError } from "@resident/core";
import { RedisServer } from "@resident/testkit/processes";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { connectRedis, RedisClaimStore, type RedisClient, RedisHealth } from "../src/index.ts";

/*
 * The breaker against a real redis-server: frozen (SIGSTOP) as surely as refused, back by itself, and not tripped
 * by one slow command or by a record it cannot read.
 */
describe("RedisHealth", () => {
  let server: RedisServer;
  let client: RedisClient;
  let health: RedisHealth;
  let store: RedisClaimStore;
  const changes: string[] = [];
  beforeAll(async () => {
    server = await RedisServer.start();
    client = connectRedis(server.url, "command");
    health = new RedisHealth(client, { onChange: (up) => changes.push(up ? "up" : "down") });
    store = new RedisClaimStore(client, { health });
  });
  afterAll(async () => {
    health?.close();
    client?.disconnect();
    await server?.dispose();
  });

  const untilUp = (up: boolean) => vi.waitFor(() => expect(health.up).toBe(up), { timeout: 15_000, interval: 50 });

  it("is not tripped by one slow command, nor by records it cannot read", async () => {
    await vi.waitFor(() => client.ping(), { timeout: 20_000, interval: 50 });
    // Another client keeps Redis busy for longer than a command may take: this one command times out.
    const busy = connectRedis(server.url, "worker");
    await busy.ping();
    const sleeping = busy.eval(
      "local t0 = redis.call('TIME') repeat local t = redis.call('TIME') until (t[1] - t0[1]) * 1e6 + t[2] - t0[2] > 1.3e6 return 1",
      0,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(store.claim("event:ws:slow", "a", 10_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    await sleeping;
    busy.disconnect();
    await expect(store.claim("event:ws:after", "a", 10_000)).resolves.toMatchObject({ claimed: true });
    await client.set("rsd:event:ws:garbled", "not a claim record");
    await expect(store.claim("event:ws:garbled", "a", 10_000)).rejects.toBeInstanceOf(CorruptRecordError);
    await client.rpush("rsd:event:ws:a-list", "x");
    await expect(store.claim("event:ws:a-list", "a", 10_000)).rejects.toBeInstanceOf(CorruptRecordError);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(changes).toEqual([]);
  });

  it("PINGs only while no command has answered within the interval", async () => {
    const own = connectRedis(server.url, "command");
    const pings = vi.spyOn(own, "ping");
    const quiet = new RedisHealth(own, { probeIntervalMs: 100 });
    const busy = new RedisClaimStore(own, { health: quiet });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const idle = pings.mock.calls.length;
      expect(idle).toBeGreaterThanOrEqual(5);
      for (let i = 0; i < 50; i++) {
        await busy.claim(`event:ws:traffic-${i}`, "a", 10_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(pings.mock.calls.length - idle).toBeLessThanOrEqual(1);
    } finally {
      quiet.close();
      own.disconnect();
    }
  });

  it("trips when Redis freezes with its sockets open, and closes by itself once it answers again", async () => {
    server.freeze();
    const frozenAt = Date.now();
    await untilUp(false);
    const detectedInMs = Date.now() - frozenAt;
    // Down, a command does not wait on Redis: it is refused at once.
    const started = performance.now();
    await expect(store.claim("event:ws:frozen", "a", 10_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(performance.now() - started).toBeLessThan(50);
    server.thaw();
    await untilUp(true);
    await expect(store.claim("event:ws:thawed", "a", 10_000)).resolves.toMatchObject({ claimed: true });
    expect(detectedInMs).toBeLessThan(5_000);
  });

  it("trips when Redis refuses connections, and closes by itself once it is back", async () => {
    await server.kill();
    await untilUp(false);
    await server.restart();
    await untilUp(true);
    expect(changes).toEqual(["down", "up", "down", "up"]);
  });
});
