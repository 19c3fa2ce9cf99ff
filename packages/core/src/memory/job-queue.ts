import { backoffDelay } from "../backoff.ts";
import { isStoreAway, PermanentSendError } from "../errors.ts";
import type { ConsumeOptions, Consumer, Job, JobHandler, JobQueue } from "../ports/job-queue.ts";
import { expiringCache } from "./expiring-cache.ts";

export interface MemoryQueueOptions {
  /** Attempts per job, the first included. */
  attempts?: number;
  backoffMs?: number;
  /** Jobs one consumer runs at once. */
  concurrency?: number;
  /** How long a finished job's id keeps refusing a second enqueue (the Redis queue's retainCompletedMs). */
  retainMs?: number;
}

interface Slot {
  handler: JobHandler<unknown>;
  concurrency: number;
  running: Set<Promise<void>>;
  closed: boolean;
  takingJobs: () => boolean;
}

/** How often a consumer that takes no jobs for now is asked again, while jobs wait. */
const pausedPollMs = 100;

/**
 * The queue port in one process, with the retry semantics of the Redis queue: attempts, exponential backoff with
 * jitter, job ids that stay known while waiting, delayed, running, and for `retainMs` after.
 * Not durable: a process that dies loses its jobs — which is why REDIS_URL is required for more than one instance.
 */
export class MemoryQueue<T> implements JobQueue<T> {
  private readonly waiting: Job<T>[] = [];
  private readonly live = new Set<string>();
  private readonly finished;
  private readonly delayed = new Set<NodeJS.Timeout>();
  private readonly slots: Slot[] = [];
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly concurrency: number;
  private readonly retainMs: number;
  private redispatch: NodeJS.Timeout | undefined;

  constructor(options: MemoryQueueOptions = {}) {
    this.attempts = options.attempts ?? 8;
    this.backoffMs = options.backoffMs ?? 1000;
    this.concurrency = options.concurrency ?? 16;
    this.retainMs = options.retainMs ?? 3_600_000;
    this.finished = expiringCache<true>(Date.now, 100_000);
  }

  async enqueue(id: string, data: T): Promise<void> {
    if (this.live.has(id) || this.finished.has(id)) return;
    this.live.add(id);
    this.waiting.push({ id, data, attempt: 1 });
    this.dispatch();
  }

  consume(handler: JobHandler<T>, options: ConsumeOptions = {}): Consumer {
    const slot: Slot = {
      handler: handler as JobHandler<unknown>,
      concurrency: this.concurrency,
      running: new Set(),
      closed: false,
      takingJobs: options.takingJobs ?? (() => true),
    };
    this.slots.push(slot);
    this.dispatch();
    return {
      close: async () => {
        slot.closed = true;
        await Promise.allSettled(slot.running);
        this.slots.splice(this.slots.indexOf(slot), 1);
      },
    };
  }

  async depth(): Promise<number> {
    return this.live.size;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.takingJobs()) {
        this.dispatchLater();
        continue;
      }
      while (!slot.closed && slot.running.size < slot.concurrency && this.waiting.length > 0) {
        const job = this.waiting.shift() as Job<T>;
        const run = this.run(slot, job).finally(() => {
          slot.running.delete(run);
          this.dispatch();
        });
        slot.running.add(run);
      }
    }
  }

  private dispatchLater(): void {
    if (this.redispatch || this.waiting.length === 0) return;
    this.redispatch = setTimeout(() => {
      this.redispatch = undefined;
      this.dispatch();
    }, pausedPollMs);
    this.redispatch.unref();
  }

  private async run(slot: Slot, job: Job<T>): Promise<void> {
    try {
      await slot.handler(job);
      this.finish(job.id);
    } catch (error) {
      if (error instanceof PermanentSendError) return this.finish(job.id);
      const last = job.attempt >= this.attempts;
      if (last && !isStoreAway(error)) return this.finish(job.id);
      const timer = setTimeout(
        () => {
          this.delayed.delete(timer);
          this.waiting.push({ ...job, attempt: last ? job.attempt : job.attempt + 1 });
          this.dispatch();
        },
        backoffDelay(job.attempt, this.backoffMs),
      );
      timer.unref();
      this.delayed.add(timer);
    }
  }

  private finish(id: string): void {
    this.live.delete(id);
    this.finished.set(id, true, { ttl: this.retainMs });
  }
}
