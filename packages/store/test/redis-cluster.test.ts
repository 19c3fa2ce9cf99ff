import { randomUUID } from "node:crypto";
import { RedisCluster } from "@resident/testkit/processes";
import { afterAll, beforeAll, expect, it } from "vitest";
import { connectRedis, RedisQueue, redisQueuedAdmission } from "../src/index.ts";
import { queueContract } from "./support/queue-contract.ts";
import { redisBackend } from "./support/redis-backend.ts";
import { storeContract } from "./support/store-contract.ts";

let cluster: RedisCluster;
beforeAll(async () => {
  cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1 });
}, 60_000);
afterAll(() => cluster?.dispose());

storeContract("redis cluster", () => redisBackend(cluster.url));
queueContract("redis cluster", () => cluster.url);

it("offers no one-step admission on a Cluster, whose gate keys and queue keys live in different slots", async () => {
  const producer = connectRedis(cluster.url, "producer");
  try {
    const queue = new RedisQueue<{ n: number }>({ producer, name: `q-${randomUUID()}` });
    // The lane then claims, enqueues and marks: the claim and queue contracts above run on this cluster.
    expect(redisQueuedAdmission(producer, queue)).toBeUndefined();
  } finally {
    producer.disconnect();
  }
});
