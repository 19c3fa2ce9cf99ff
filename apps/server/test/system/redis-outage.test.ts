import { it } from "vitest";
import { useDeployment } from "./support/deployment.ts";
import { busiest, type StormSize, stormThrough } from "./support/store-away-storm.ts";

/*
 * Redis goes away in the middle of a storm (support/store-away-storm.ts), for every instance at once, and nothing is
 * lost or answered twice. The instance with the most answers in flight is killed with SIGKILL in the middle of each
 * outage.
 *
 * Two outages, one deployment: Redis killed and restarted with its AOF 20 s later; Redis frozen (SIGSTOP: its
 * sockets stay open, nothing is answered) for 45 s, longer than every lease and lock (10 s and 8 s by default).
 */

const size: StormSize = {
  slackMessages: 300,
  chatworkMessages: 100,
  chatworkRooms: 20,
  holdMs: 2_000,
  leadMs: 5_000,
  tailMs: 10_000,
  seed: Number(process.env.STORM_SEED ?? Date.now() % 1_000_000),
};

const d = useDeployment({ instances: 3, platforms: ["slack", "chatwork"] });
/** Every tag sent by any storm of this file: what the fakes may carry. */
const everSent = new Set<string>();

it("loses nothing and answers nothing twice while Redis is killed and restarted with its AOF", {
  timeout: 300_000,
}, async () => {
  await stormThrough(d(), everSent, size, {
    name: "redis restart",
    ms: 20_000,
    begin: () => d().redis.kill(),
    end: () => d().redis.restart(),
    storeUp: [0, 0, 0],
    victim: busiest(d()),
  });
});

it("loses nothing and answers nothing twice while Redis is frozen for longer than every lease", {
  timeout: 300_000,
}, async () => {
  await stormThrough(d(), everSent, size, {
    name: "redis freeze",
    ms: 45_000,
    begin: () => d().redis.freeze(),
    end: () => d().redis.thaw(),
    storeUp: [0, 0, 0],
    victim: busiest(d()),
  });
});
