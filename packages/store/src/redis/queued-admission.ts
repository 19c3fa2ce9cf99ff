import { type ClaimRecord, type QueuedAdmission, TurnBatch } from "@resident/core";
import { Cluster, type Redis, type Result } from "ioredis";
import { decodeClaim, done } from "./claim-record.ts";
import type { RedisClient } from "./connection.ts";
import type { RedisQueue } from "./job-queue.ts";
import { addJob } from "./queue-scripts.ts";
import { RedisPort, type RedisStoreOptions } from "./store-call.ts";
import type { QueueKeys } from "./stream-consumer.ts";

/**
 * KEYS: stream, then gate key and mark per delivery · ARGV: job id, data, done record, ttl ms per delivery → per
 * delivery 0 admitted, or the record standing. Each record is written first (SET NX GET, the claim's command: a
 * duplicate costs that one command in the script) and its job added after it: nothing runs between them, and a
 * script is one unit in the AOF too, so after a crash a gate's record and its job exist both or neither. Deliveries
 * of one key in one call are taken in order, the first admitted and the rest handed its record. A command Redis
 * refuses fails the whole call; the deliveries before it stay admitted, and their redeliveries find them so.
 */
const admitQueued = `local outcomes = {}
for i = 1, (#KEYS - 1) / 2 do
  local a = (i - 1) * 4
  local standing = redis.call('SET', KEYS[i * 2], ARGV[a + 3], 'PX', ARGV[a + 4], 'NX', 'GET')
  if standing then outcomes[i] = standing else
    ${addJob({ stream: "KEYS[1]", mark: "KEYS[i * 2 + 1]", id: "ARGV[a + 1]", data: "ARGV[a + 2]" })}    outcomes[i] = 0
  end
end
return outcomes`;

declare module "ioredis" {
  interface RedisCommander<Context> {
    rsdAdmitQueued(keyCount: number, ...keysThenArgs: (string | number)[]): Result<(string | 0)[], Context>;
  }
}

interface Delivery {
  key: string;
  data: string;
  record: string;
  ttlMs: number;
}

/**
 * QueuedAdmission on Redis standalone: the gate's key (a claim key of RedisClaimStore, under the same prefix) and the
 * queue's job in one script, the job added as RedisQueue.enqueue adds it. The deliveries of one event-loop turn go
 * in one script call: under load an instance reads many requests a turn, and one call makes one socket write, one
 * reply to wake up for and one script run in Redis for all of them; at a steady rate a turn holds one.
 */
export class RedisQueuedAdmission<T> extends RedisPort implements QueuedAdmission<T> {
  private readonly turn = new TurnBatch<Delivery, string | 0>((deliveries) => this.admitAll(deliveries));

  constructor(
    client: Redis,
    private readonly queue: QueueKeys,
    options: RedisStoreOptions = {},
  ) {
    super(client, options.health, options.prefix);
    client.defineCommand("rsdAdmitQueued", { lua: admitQueued });
  }

  async admit(key: string, data: T, value: string, ttlMs: number): Promise<ClaimRecord | undefined> {
    const standing = await this.turn.call({ key, data: JSON.stringify(data), record: done(value), ttlMs });
    return standing === 0 ? undefined : decodeClaim(standing);
  }

  private admitAll(deliveries: Delivery[]): Promise<(string | 0)[]> {
    const { stream, mark } = this.queue;
    const keys = [stream, ...deliveries.flatMap(({ key }) => [this.prefix + key, mark(key)])];
    const args = deliveries.flatMap(({ key, data, record, ttlMs }) => [key, data, record, ttlMs]);
    return this.call("admit", () => this.client.rsdAdmitQueued(keys.length, ...keys, ...args));
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
