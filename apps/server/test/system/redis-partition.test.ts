import { deploymentRedisArgs } from "@resident/testkit/deployment";
import { RedisServer, TcpLink } from "@resident/testkit/processes";
import { afterAll, beforeAll, it } from "vitest";
import { useDeployment } from "./support/deployment.ts";
import { type StoreAway, type StormSize, stormThrough } from "./support/store-away-storm.ts";

/*
 * One instance loses Redis while the others keep it, in the middle of a storm (support/store-away-storm.ts):
 * resident-1 reaches Redis through a TcpLink, cut for 20 s (longer than every lease and lock), as a network partition
 * between one host and Redis would. The cut-off instance takes its deliveries in through PostgreSQL while the others
 * queue theirs in Redis, so a message's twins are queued in both lanes at once; the jobs it had read from the stream
 * are taken over by the others while it may still be answering them; and what it sent just before the cut (claims,
 * enqueues, settlements it may have given up on) reaches Redis only when the link heals, all of it late.
 *
 * Twice, one deployment: the link healed with the instance alive; then the cut-off instance killed with SIGKILL
 * halfway through the partition, its connections' last bytes still held by the link until it heals.
 */

const size: StormSize = {
  slackMessages: 200,
  chatworkMessages: 60,
  chatworkRooms: 20,
  holdMs: 2_000,
  leadMs: 4_000,
  tailMs: 8_000,
  seed: Number(process.env.STORM_SEED ?? Date.now() % 1_000_000),
};

let redis: RedisServer;
let link: TcpLink;
beforeAll(async () => {
  redis = await RedisServer.start({ args: deploymentRedisArgs });
  link = await TcpLink.start(redis.port);
});
// Registered before the deployment's own, so it runs after the deployment has stopped its instances.
afterAll(async () => {
  await link?.close();
  await redis?.dispose();
});

const d = useDeployment(() => ({
  instances: 3,
  platforms: ["slack", "chatwork"],
  redis,
  instanceEnv: (index): Record<string, string> => (index === 0 ? { REDIS_URL: link.through(redis.url) } : {}),
}));
const everSent = new Set<string>();

/** A storm through a 20 s partition of resident-1 from Redis; `victim` dies halfway through it. */
const partitioned = (name: string, victim?: StoreAway["victim"]) =>
  stormThrough(d(), everSent, size, {
    name,
    ms: 20_000,
    begin: () => link.partition(),
    end: () => link.heal(),
    storeUp: [0, 1, 1],
    victim,
  });

it(
  "loses nothing and answers nothing twice while one instance is cut off from Redis and the others are not",
  { timeout: 300_000 },
  () => partitioned("redis partition"),
);

it(
  "loses nothing and answers nothing twice when the instance cut off from Redis dies mid-partition",
  { timeout: 300_000 },
  () => partitioned("redis partition, the cut-off instance killed", () => d().instances[0]),
);
