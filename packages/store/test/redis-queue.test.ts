import { RedisServer } from "@resident/testkit/processes";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { connectRedis, RedisQueue } from "../src/index.ts";
import { queueContract } from "./support/queue-contract.ts";

let server: RedisServer;
beforeAll(async () => {
  server = await RedisServer.start();
});
afterAll(() => server?.dispose());

queueContract("redis standalone", () => server.url);

it("costs a few Redis commands per job, the commands run inside its scripts included", async () => {
  const own = await RedisServer.start();
  const producer = connectRedis(own.url, "producer");
  const worker = connectRedis(own.url, "worker");
  const admin = connectRedis(own.url, "command");
  try {
    const queue = new RedisQueue<{ n: number }>({ producer, worker });
    await vi.waitFor(() => queue.depth(), { timeout: 10_000 });
    let ran = 0;
    const consumer = queue.consume(async () => {
      ran++;
    });
    await vi.waitFor(async () => expect(await admin.exists("{rsd}:replies:stream")).toBe(1));
    await admin.config("RESETSTAT");
    const jobs = 640;
    // 64 at a time, as concurrent acks enqueue.
    for (let i = 0; i < jobs; i += 64) {
      await Promise.all(Array.from({ length: 64 }, (_, k) => queue.enqueue(`event:ws:${i + k}`, { n: i + k })));
    }
    await vi.waitFor(() => expect(ran).toBe(jobs), { timeout: 20_000 });
    await consumer.close();
    const stats = (await admin.info("commandstats")) as string;
    const calls = [...stats.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)]
      .filter(([, name]) => !/^(info|config)/.test(name ?? ""))
      .reduce((sum, [, , n]) => sum + Number(n), 0);
    process.stdout.write(`queue: ${(calls / jobs).toFixed(2)} Redis commands per job (INFO commandstats)\n`);
    expect(calls / jobs).toBeLessThan(8);
  } finally {
    for (const client of [producer, worker, admin]) client.disconnect();
    await own.dispose();
  }
});

it("forgets the names of consumers gone for good, never one with an entry still pending", async () => {
  const own = await RedisServer.start();
  const producer = connectRedis(own.url, "producer");
  const worker = connectRedis(own.url, "worker");
  const admin = connectRedis(own.url, "command");
  const stream = "{rsd}:replies:stream";
  const names = async () => ((await admin.xinfo("CONSUMERS", stream, "workers")) as unknown[][]).map((c) => c[1]);
  try {
    // A lock longer than the test: the entry a dead consumer holds stays pending for it throughout.
    const queue = new RedisQueue<{ n: number }>({
      producer,
      worker,
      lockDurationMs: 60_000,
      forgetConsumersAfterMs: 300,
    });
    await vi.waitFor(() => queue.depth(), { timeout: 10_000 });
    await admin.xgroup("CREATE", stream, "workers", "0", "MKSTREAM");
    // Two instances that restarted: one died holding a job, the other with nothing in hand.
    await queue.enqueue("event:ws:held", { n: 1 });
    await admin.xreadgroup("GROUP", "workers", "gone:holding", "COUNT", 1, "STREAMS", stream, ">");
    await admin.xgroup("CREATECONSUMER", stream, "workers", "gone:empty");
    expect((await names()).sort()).toEqual(["gone:empty", "gone:holding"]);

    const consumer = queue.consume(async () => {});
    await vi.waitFor(async () => expect(await names()).not.toContain("gone:empty"), { timeout: 5_000 });
    expect(await names()).toContain("gone:holding");
    await consumer.close();
  } finally {
    for (const client of [producer, worker, admin]) client.disconnect();
    await own.dispose();
  }
});
