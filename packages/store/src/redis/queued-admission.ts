import type { ClaimRecord, QueuedAdmission } from "@resident/core";
import { Cluster, type Redis, type Result } from "ioredis";
import { decodeClaim, done } from "./claim-record.ts";
import type { RedisClient } from "./connection.ts";
import type { RedisQueue } from "./job-queue.ts";
import { addJob } from "./queue-scripts.ts";
import { RedisPort, type RedisStoreOptions } from "./store-call.ts";
import type { QueueKeys } from "./stream-consumer.ts";

/**
 * KEYS: gate key, stream, mark · ARGV: job id, data, done record, ttl ms → {} admitted, {record} the record standing.
 * The record is written first (SET NX GET, the claim's command: a duplicate costs that one command in the script)
 * and the job added after it: nothing runs between them, and a script is one unit in the AOF too, so after a crash
 * the gate's record and the job exist both or neither.
 */
const admitQueued = `local standing = redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4], 'NX', 'GET')
if standing then return {standing} end
${addJob({ stream: "KEYS[2]", mark: "KEYS[3]", id: "ARGV[1]", data: "ARGV[2]" })}return {}`;

declare module "ioredis" {
  interface RedisCommander<Context> {
    rsdAdmitQueued(
      gate: string,
      stream: string,
      mark: string,
      id: string,
      data: string,
      record: string,
      ttlMs: number,
    ): Result<string[], Context>;
  }
}

/**
 * QueuedAdmission on Redis standalone: the gate's key (a claim key of RedisClaimStore, under the same prefix) and the
 * queue's job in one script, the job added as RedisQueue.enqueue adds it.
 */
export class RedisQueuedAdmission<T> extends RedisPort implements QueuedAdmission<T> {
  constructor(
    client: Redis,
    private readonly queue: QueueKeys,
    options: RedisStoreOptions = {},
  ) {
    super(client, options.health, options.prefix);
    client.defineCommand("rsdAdmitQueued", { numberOfKeys: 3, lua: admitQueued });
  }

  admit(key: string, data: T, value: string, ttlMs: number): Promise<ClaimRecord | undefined> {
    const { stream, mark } = this.queue;
    return this.call("admit", async () => {
      const [standing] = await this.client.rsdAdmitQueued(
        this.prefix + key,
        stream,
        mark(key),
        key,
        JSON.stringify(data),
        done(value),
        ttlMs,
      );
      return standing === undefined ? undefined : decodeClaim(standing);
    });
  }
}

/**
 * The one-step admission over `queue` where Redis can run it: not on a Cluster, where the gate's keys and the queue's
 * `{rsd}` keys hash to different slots, which one script cannot span; there the lane claims, enqueues and marks.
 */
export function redisQueuedAdmission<T>(
  client: RedisClient,
  queue: RedisQueue<T>,
  options?: RedisStoreOptions,
): QueuedAdmission<T> | undefined {
  return client instanceof Cluster ? undefined : new RedisQueuedAdmission(client, queue.keys, options);
}
