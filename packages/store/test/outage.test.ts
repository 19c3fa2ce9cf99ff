import { StoreUnavailableError } from "@resident/core";
import { freePort, RedisServer } from "@resident/testkit/processes";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  connectRedis,
  RedisChangeFeed,
  RedisClaimStore,
  type RedisClient,
  RedisConversationMemory,
  RedisQueue,
  RedisRateLimiter,
  type RedisRole,
  RedisStatsStore,
} from "../src/index.ts";

/*
 * Redis goes away and comes back on the same port. Every operation of a fail-fast connection rejects with
 * StoreUnavailableError while it is away — before it is restarted, so nothing waits for it — and the very same
 * objects work again once it is back: no restart of ours, no sticky failure, not even after a failed first connect.
 */
describe("when Redis is down", () => {
  const closers: (() => Promise<void>)[] = [];
  const servers: RedisServer[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    for (const server of servers.splice(0)) await server.dispose();
  });

  function parts(url: string) {
    const clients: RedisClient[] = [];
    const connect = (role: RedisRole) => {
      const client = connectRedis(url, role);
      clients.push(client);
      return client;
    };
    const command = connect("command");
    const producer = connect("producer");
    let reconnectAttempts = 0;
    for (const client of [command, producer]) client.on("reconnecting", () => reconnectAttempts++);
    const worker = connect("worker");
    const queue = new RedisQueue<{ n: number }>({ producer, worker, name: "outage", backoffMs: 20 });
    const ran: string[] = [];
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const consumer = queue.consume(async (job) => {
      ran.push(job.id);
      if (job.id.startsWith("held:")) await released;
    });
    // Subscribed once, for good: hearing changes after an outage means the subscriber subscribed again by itself.
    const heard: string[] = [];
    const unsubscribe = new RedisChangeFeed(connect("command"), connect("subscriber")).subscribe((id) =>
      heard.push(id),
    );
    const built = {
      claims: new RedisClaimStore(command),
      memory: new RedisConversationMemory(command),
      stats: new RedisStatsStore(command),
      limiter: new RedisRateLimiter(command),
      publisher: new RedisChangeFeed(command, connect("subscriber")),
      queue,
      consumer,
      worker,
      ran,
      /** Lets the `held:` jobs finish. */
      release,
      heard,
      reconnectAttempts: () => reconnectAttempts,
    };
    closers.push(async () => {
      // Disconnected first, so closing needs no Redis: a failed test may leave it down.
      unsubscribe();
      for (const client of clients) client.disconnect();
      await consumer.close();
    });
    return built;
  }

  async function expectAllRefused(p: ReturnType<typeof parts>): Promise<void> {
    const operations = [
      () => p.claims.claim("event:ws:down", "me", 10_000),
      () => p.claims.commit("event:ws:down", "token", "x", 10_000),
      () => p.memory.recent("conversation:ws:c:", 10),
      () => p.stats.add([{ tenantId: "t", workspaceId: "ws", counts: { events: 1 } }]),
      () => p.claims.ping(),
      () => p.limiter.take([{ key: "room", limit: 1, windowMs: 1000 }]),
      () => p.publisher.publish("ws"),
      () => p.queue.enqueue("event:ws:down", { n: 0 }),
      () => p.queue.depth(),
    ];
    const attemptsBefore = p.reconnectAttempts();
    for (const operation of operations) await expect(operation()).rejects.toEqual(expect.any(StoreUnavailableError));
    // Refused on the spot: a command held until the next reconnection attempt would cost one attempt per operation.
    expect(p.reconnectAttempts() - attemptsBefore).toBeLessThan(operations.length);
  }

  async function expectAllWorking(p: ReturnType<typeof parts>, round: string): Promise<void> {
    await vi.waitFor(() => p.claims.ping(), { timeout: 10_000 });
    expect(await p.claims.claim(`event:ws:${round}`, "me", 10_000)).toMatchObject({ claimed: true });
    expect(await p.limiter.take([{ key: `room-${round}`, limit: 1, windowMs: 1000 }])).toBe(0);
    await vi.waitFor(() => p.queue.enqueue(`event:ws:${round}`, { n: 1 }), { timeout: 10_000 });
    await vi.waitFor(() => expect(p.ran).toContain(`event:ws:${round}`), { timeout: 15_000 });
    await vi.waitFor(
      async () => {
        await p.publisher.publish(round);
        expect(p.heard).toContain(round);
      },
      { timeout: 10_000 },
    );
  }

  it("refuses at once while it is away and heals when it returns on the same port", async () => {
    const server = await RedisServer.start();
    servers.push(server);
    const p = parts(server.url);
    await expectAllWorking(p, "before");

    await server.kill();
    await expectAllRefused(p);

    await server.restart();
    await expectAllWorking(p, "after");
  });

  it("lets a consumer close while Redis is away, or was never reached", async () => {
    const server = await RedisServer.start();
    servers.push(server);
    const gone = parts(server.url);
    await expectAllWorking(gone, "closing");
    await server.kill();
    await vi.waitFor(() => expect(gone.worker.status).toBe("reconnecting"));
    await gone.consumer.close();

    const never = parts(`redis://127.0.0.1:${await freePort()}`);
    await vi.waitFor(() => expect(never.worker.status).toBe("reconnecting"));
    await never.consumer.close();
  });

  it("stops waiting for the jobs in hand when Redis goes away during a graceful close", async () => {
    const server = await RedisServer.start();
    servers.push(server);
    const p = parts(server.url);
    await vi.waitFor(() => p.queue.enqueue("held:1", { n: 1 }), { timeout: 10_000 });
    await vi.waitFor(() => expect(p.ran).toContain("held:1"), { timeout: 10_000 });
    const closed = p.consumer.close();
    await server.kill();
    await vi.waitFor(() => expect(p.worker.status).toBe("reconnecting"));
    // The job finishes now, but its completion cannot reach Redis.
    p.release();
    await closed;
  });

  it("heals after a failed first connection", async () => {
    const port = await freePort();
    const p = parts(`redis://127.0.0.1:${port}`);
    await expectAllRefused(p);

    const server = await RedisServer.start({ port });
    servers.push(server);
    await expectAllWorking(p, "late");
  });
});
