import { RedisCluster } from "@resident/testkit/processes";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BullQueue, connectRedis, type RedisClient } from "../src/index.ts";
import { redisBackend } from "./support/redis-backend.ts";
import { storeContract } from "./support/store-contract.ts";

let cluster: RedisCluster;
beforeAll(async () => {
  cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1 });
}, 60_000);
afterAll(() => cluster?.dispose());

storeContract("redis cluster", () => redisBackend(cluster.url));

describe("BullQueue on redis cluster", () => {
  let producer: RedisClient;
  let worker: RedisClient;
  beforeAll(() => {
    producer = connectRedis(cluster.url, "producer");
    worker = connectRedis(cluster.url, "worker");
  });
  afterAll(() => Promise.all([producer.quit(), worker.quit()]));

  it("runs a job under its original id, once", async () => {
    const queue = new BullQueue<{ text: string }>({ producer, worker, name: "cluster-smoke" });
    const seen: { id: string; text: string; attempt: number }[] = [];
    const consumer = queue.consume(async (job) => {
      seen.push({ id: job.id, text: job.data.text, attempt: job.attempt });
    });
    await vi.waitFor(() => queue.enqueue("event:ws-1:Ev01", { text: "hello" }), { timeout: 10_000 });
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
    await queue.enqueue("event:ws-1:Ev01", { text: "hello again" });
    expect(await queue.depth()).toBe(0);
    expect(seen).toEqual([{ id: "event:ws-1:Ev01", text: "hello", attempt: 1 }]);
    await consumer.close();
    await queue.close();
  });
});
