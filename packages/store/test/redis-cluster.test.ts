import { RedisCluster } from "@resident/testkit/processes";
import { afterAll, beforeAll } from "vitest";
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
