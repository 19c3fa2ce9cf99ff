import { randomUUID } from "node:crypto";
import { RedisServer } from "@resident/testkit/processes";
import { expect, it, vi } from "vitest";
import { connectRedis, RedisClaimStore, type RedisClient, RedisQueue, redisQueuedAdmission } from "../src/index.ts";
import { admissionContract } from "./support/admission-contract.ts";
import { fresh } from "./support/claim-contract.ts";
import { redisBackend } from "./support/redis-backend.ts";
import { storeContract } from "./support/store-contract.ts";

storeContract("redis standalone", async () => {
  const server = await RedisServer.start();
  const backend = await redisBackend(server.url);
  return {
    ...backend,
    close: async () => {
      await backend.close();
      await server.dispose();
    },
  };
});

/** The lane's parts as an instance builds them: the gate's claims on `command`, the queue and the admission on `producer`. */
async function admissionLane(url: string) {
  const [command, producer, worker] = [
    connectRedis(url, "command"),
    connectRedis(url, "producer"),
    connectRedis(url, "worker"),
  ];
  const claims = new RedisClaimStore(command);
  await vi.waitFor(() => claims.ping(), { timeout: 10_000 });
  const queue = async () => {
    const queue = new RedisQueue<{ n: number; text: string }>({
      producer,
      worker,
      name: `q-${randomUUID()}`,
      backoffMs: 20,
    });
    await vi.waitFor(() => queue.depth(), { timeout: 10_000 });
    const admission = redisQueuedAdmission(producer, queue);
    if (!admission) throw new Error("Redis standalone offers the one-step admission");
    return { queue, admission };
  };
  return {
    claims,
    queue,
    command,
    close: () => Promise.all([command, producer, worker].map((client) => client.quit())),
  };
}

admissionContract("redis standalone", async () => {
  const server = await RedisServer.start();
  const lane = await admissionLane(server.url);
  return {
    ...lane,
    close: async () => {
      await lane.close();
      await server.dispose();
    },
  };
});

it("admits one turn's deliveries in one script call, each key once and in order", async () => {
  const server = await RedisServer.start();
  const lane = await admissionLane(server.url);
  try {
    const { queue, admission } = await lane.queue();
    const scripts = () => commandCalls(lane.command, ["evalsha", "eval"]);
    await admission.admit(fresh("event"), { n: -1, text: "loads the script" }, "queued", 10_000);
    const keys = Array.from({ length: 10 }, () => fresh("event"));
    const before = await scripts();
    const outcomes = await Promise.all(
      [...keys, ...keys].map((key, n) => admission.admit(key, { n, text: "" }, `copy ${n}`, 10_000)),
    );
    expect((await scripts()) - before).toBe(1);
    expect(outcomes.slice(0, 10)).toEqual(keys.map(() => undefined));
    expect(outcomes.slice(10)).toEqual(keys.map((_, n) => ({ state: "done", value: `copy ${n}` })));
    expect(await queue.depth()).toBe(11);
  } finally {
    await lane.close();
    await server.dispose();
  }
});

it("admits a delivery, and turns its duplicate away, in one script call each: one round trip", async () => {
  const server = await RedisServer.start();
  const lane = await admissionLane(server.url);
  try {
    const { admission } = await lane.queue();
    const calls = async () => ({
      scripts: await commandCalls(lane.command, ["evalsha", "eval"]),
      plain: await commandCalls(lane.command, ["set", "get", "xadd"]),
    });
    const key = fresh("event");
    const before = await calls();
    await admission.admit(key, { n: 1, text: "" }, "queued", 10_000);
    const admitted = await calls();
    await admission.admit(key, { n: 1, text: "" }, "queued", 10_000);
    const duplicate = await calls();
    expect(admitted.scripts - before.scripts).toBe(1);
    expect(duplicate.scripts - admitted.scripts).toBe(1);
    // The record's SET NX GET, the mark's SET NX and the XADD inside the one script; the duplicate's SET NX GET alone.
    expect([admitted.plain - before.plain, duplicate.plain - admitted.plain]).toEqual([3, 1]);
  } finally {
    await lane.close();
    await server.dispose();
  }
});

/** How many times Redis has run the named commands, by INFO commandstats. */
async function commandCalls(client: RedisClient, names: readonly string[]): Promise<number> {
  const stats = String(await client.info("commandstats"));
  return names.reduce((sum, name) => sum + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0), 0);
}
