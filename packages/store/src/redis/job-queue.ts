import {
  backoffDelay,
  type Consumer,
  type EnqueueOptions,
  type JobHandler,
  type JobQueue,
  PermanentSendError,
} from "@resident/core";
import { Queue, UnrecoverableError, Worker } from "bullmq";
import type { RedisClient } from "./connection.ts";
import { fromJobId, toJobId } from "./job-id.ts";
import type { RedisHealth } from "./redis-health.ts";
import { storeCall } from "./store-call.ts";

export interface BullQueueOptions {
  /** A fail-fast connection (`producer` role): enqueue and depth reject at once while Redis is away. */
  producer: RedisClient;
  /** The `worker` role connection (maxRetriesPerRequest: null), which BullMQ also duplicates for its blocking reads. consume() needs it. */
  worker?: RedisClient;
  /** Default `replies`. */
  name?: string;
  /** Key prefix; a hash tag keeps all of the queue's keys in one Cluster slot, as BullMQ requires. Default `{rsd}`. */
  prefix?: string;
  /** Attempts per job, the first included. Default 8. */
  attempts?: number;
  /** First retry delay; it doubles per attempt (capped at 60 s), half of it random. Default 1000 ms. */
  backoffMs?: number;
  /** Jobs one consumer runs at once. Default 16. */
  concurrency?: number;
  /** A running job's lock, renewed every half of it while the handler runs. Default 20 s. */
  lockDurationMs?: number;
  /** How often workers look for jobs whose lock lapsed (their worker died) and hand them back. Default 10 s. */
  stalledIntervalMs?: number;
  /** Times a job may be handed back after stalling before it fails. Default 3. */
  maxStalledCount?: number;
  /** How long a completed job's id keeps refusing a second enqueue. Default 1 h. */
  retainCompletedMs?: number;
  /** Completed jobs kept at most. Default 100 000. */
  retainCompletedCount?: number;
  /** How long a failed job is kept for inspection (and its id refuses a second enqueue). Default 7 days. */
  retainFailedMs?: number;
  /** The breaker that tells whether Redis is up; while it says down, enqueue and depth reject at once. */
  health?: RedisHealth;
  /** Connection and processing errors of the queue and its workers. Default: ignored. */
  onError?: (error: Error) => void;
}

/** BullMQ's name for our backoff: the same equal-jitter curve as MemoryQueue (backoffDelay). */
const equalJitter = "equal-jitter";

/**
 * JobQueue on BullMQ. Job ids are the caller's ids (escaped for BullMQ), so an id already waiting, delayed,
 * running or retained is not added twice; a failed handler is retried with backoff; a job whose worker died is
 * picked up by another worker once its lock lapses (stalled-job recovery).
 */
export class BullQueue<T> implements JobQueue<T> {
  // Spelled out: BullMQ infers data and name types through conditional types that stay open for a generic T.
  private readonly queue: Queue<T, void, string, T, void, string>;
  private readonly name: string;
  private readonly prefix: string;
  private readonly onError: (error: Error) => void;

  constructor(private readonly options: BullQueueOptions) {
    this.name = options.name ?? "replies";
    this.prefix = options.prefix ?? "{rsd}";
    this.onError = options.onError ?? (() => {});
    this.queue = new Queue<T, void, string, T, void, string>(this.name, {
      connection: options.producer,
      prefix: this.prefix,
      // Waiting for "ready" or asking the server's version would hang or fail for good while Redis is away;
      // skipping both lets every add fail fast on its own and work again once the connection is back.
      skipWaitingForReady: true,
      skipVersionCheck: true,
      defaultJobOptions: {
        attempts: options.attempts ?? 8,
        backoff: { type: equalJitter },
        removeOnComplete: {
          age: (options.retainCompletedMs ?? 3_600_000) / 1000,
          count: options.retainCompletedCount ?? 100_000,
        },
        removeOnFail: { age: (options.retainFailedMs ?? 7 * 86_400_000) / 1000 },
      },
    });
    this.queue.on("error", this.onError);
  }

  /**
   * BullMQ's add is one script of about ten commands even when the id is known (measured: infra/bench/README.md).
   * A copy whose job is probably stored looks the job's hash up first (one command), and adds only if it is missing:
   * the hash exists from the moment add stored the job until retention removes it.
   */
  enqueue(id: string, data: T, options?: EnqueueOptions): Promise<void> {
    const jobId = toJobId(id);
    return storeCall(
      "enqueue",
      async () => {
        if (options?.probablyStored && (await this.options.producer.exists(this.queue.toKey(jobId))) === 1) return;
        await this.queue.add(this.name, data, { jobId });
      },
      this.options.health,
    );
  }

  consume(handler: JobHandler<T>): Consumer {
    const connection = this.options.worker;
    if (!connection) throw new Error("BullQueue.consume needs the `worker` connection");
    const backoffMs = this.options.backoffMs ?? 1000;
    const worker = new Worker<T>(
      this.name,
      (job) =>
        handler({ id: fromJobId(job.id as string), data: job.data, attempt: job.attemptsMade + 1 }).catch((error) => {
          // BullMQ's own class is the only way to fail a job without its remaining attempts.
          throw error instanceof PermanentSendError ? new UnrecoverableError(error.message) : error;
        }),
      {
        connection,
        prefix: this.prefix,
        concurrency: this.options.concurrency ?? 16,
        lockDuration: this.options.lockDurationMs ?? 20_000,
        stalledInterval: this.options.stalledIntervalMs ?? 10_000,
        maxStalledCount: this.options.maxStalledCount ?? 3,
        settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, backoffMs) },
      },
    );
    worker.on("error", this.onError);
    let closing: Promise<void> | undefined;
    return { close: () => (closing ??= closeWorker(worker, connection)) };
  }

  depth(): Promise<number> {
    return storeCall(
      "depth",
      () => this.queue.getJobCountByTypes("waiting", "delayed", "active", "prioritized"),
      this.options.health,
    );
  }

  /** Closes the producer side; the connections stay open, they belong to whoever made them. */
  close(): Promise<void> {
    return this.queue.close();
  }
}

/**
 * BullMQ's graceful close records the jobs in hand as finished, so while Redis is away it waits for Redis to return
 * (forever, if it never does). Without Redis, close at once, or stop waiting once the connection drops: the worker
 * takes no more jobs, and the jobs in hand lose their locks and are taken over as stalled once Redis is back.
 */
async function closeWorker(worker: Worker, connection: RedisClient): Promise<void> {
  if (connection.status !== "ready") return worker.close(true);
  let dropped = () => {};
  const connectionDropped = new Promise<void>((resolve) => {
    dropped = resolve;
    connection.once("close", resolve);
  });
  try {
    await Promise.race([worker.close(), connectionDropped]);
  } finally {
    connection.off("close", dropped);
  }
}
