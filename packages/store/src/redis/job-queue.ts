import type { ConsumeOptions, Consumer, EnqueueOptions, JobHandler, JobQueue } from "@resident/core";
import type { RedisClient } from "./connection.ts";
import { defineQueueScripts } from "./queue-scripts.ts";
import type { RedisHealth } from "./redis-health.ts";
import { storeCall } from "./store-call.ts";
import { type QueueKeys, StreamConsumer } from "./stream-consumer.ts";

export interface RedisQueueOptions {
  /** A fail-fast connection (`producer` role): enqueue and depth reject at once while Redis is away. */
  producer: RedisClient;
  /** The `worker` role connection, which waits for Redis; consume() needs it, and duplicates it for its blocking reads. */
  worker?: RedisClient;
  /** Default `replies`. */
  name?: string;
  /** Key prefix; a hash tag keeps all of the queue's keys in one Cluster slot, as its scripts require. Default `{rsd}`. */
  prefix?: string;
  /** Attempts per job, the first included. Default 8. */
  attempts?: number;
  /** First retry delay; it doubles per attempt (capped at 60 s), half of it random. Default 1000 ms. */
  backoffMs?: number;
  /** Jobs one consumer runs at once. Default 16. */
  concurrency?: number;
  /** A running job's lock, renewed every half of it while the handler runs. Default 20 s. */
  lockDurationMs?: number;
  /** How often a consumer looks for jobs whose lock lapsed (their consumer died) and takes them over. Default 10 s. */
  stalledIntervalMs?: number;
  /** Times a job may be taken over after stalling before it fails. Default 3. */
  maxStalledCount?: number;
  /** How long a completed job's id keeps refusing a second enqueue. Default 1 h. */
  retainCompletedMs?: number;
  /** How long a failed job is kept for inspection (and its id refuses a second enqueue). Default 7 days. */
  retainFailedMs?: number;
  /**
   * How long a consumer name with nothing pending may go without reading before it is deleted from the group. Keep it
   * far above a read's 5 s block, for which a live consumer of another instance looks idle. Default 1 h.
   */
  forgetConsumersAfterMs?: number;
  /** The breaker that tells whether Redis is up; while it says down, enqueue and depth reject at once. */
  health?: RedisHealth;
  /** Connection and processing errors of the consumers. Default: ignored. */
  onError?: (error: Error) => void;
}

/**
 * JobQueue on a Redis stream and its consumer group: a job is an entry (XADD), consumers read new entries
 * (XREADGROUP), settle them (XACK and XDEL) and take over the ones whose consumer stopped renewing them (XAUTOCLAIM).
 * Each id has a mark (`<prefix>:<name>:job:<id>`), set with the entry in one script, that refuses the id while the
 * job waits, runs or is delayed, and for the retention after it ended.
 */
export class RedisQueue<T> implements JobQueue<T> {
  /** Where its jobs are kept, for a script that adds jobs beside other writes (RedisQueuedAdmission). */
  readonly keys: QueueKeys;

  constructor(private readonly options: RedisQueueOptions) {
    const base = `${options.prefix ?? "{rsd}"}:${options.name ?? "replies"}`;
    this.keys = { stream: `${base}:stream`, delayed: `${base}:delayed`, mark: (id) => `${base}:job:${id}` };
    defineQueueScripts(options.producer);
  }

  /**
   * One script, whose first step is the lookup (`SET NX` on the mark): a known id costs that one command, so
   * `probablyStored` needs no lookup of its own.
   */
  enqueue(id: string, data: T, _options?: EnqueueOptions): Promise<void> {
    const { stream, mark } = this.keys;
    return storeCall(
      "enqueue",
      async () => {
        await this.options.producer.rsdQueueAdd(stream, mark(id), id, JSON.stringify(data));
      },
      this.options.health,
    );
  }

  consume(handler: JobHandler<T>, options: ConsumeOptions = {}): Consumer {
    const { worker } = this.options;
    if (!worker) throw new Error("RedisQueue.consume needs the `worker` connection");
    defineQueueScripts(worker);
    const lockMs = this.options.lockDurationMs ?? 20_000;
    return new StreamConsumer<T>(worker, this.keys, handler, {
      group: "workers",
      attempts: this.options.attempts ?? 8,
      backoffMs: this.options.backoffMs ?? 1000,
      concurrency: this.options.concurrency ?? 16,
      lockMs,
      stalledIntervalMs: this.options.stalledIntervalMs ?? lockMs / 2,
      maxStalledCount: this.options.maxStalledCount ?? 3,
      retainCompletedMs: this.options.retainCompletedMs ?? 3_600_000,
      retainFailedMs: this.options.retainFailedMs ?? 7 * 86_400_000,
      forgetConsumersAfterMs: this.options.forgetConsumersAfterMs ?? 3_600_000,
      onError: this.options.onError ?? (() => {}),
      takingJobs: options.takingJobs ?? (() => true),
    });
  }

  depth(): Promise<number> {
    return storeCall(
      "depth",
      () => this.options.producer.rsdQueueDepth(this.keys.stream, this.keys.delayed),
      this.options.health,
    );
  }
}
