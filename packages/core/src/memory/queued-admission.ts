import type { QueuedAdmission } from "../ports/queued-admission.ts";
import type { MemoryClaimStore } from "./claim-store.ts";
import type { MemoryQueue } from "./job-queue.ts";

/**
 * QueuedAdmission in one process: the record is written and the job added before anything else runs (MemoryQueue
 * stores a job before its enqueue yields), which is as atomic as the Redis script.
 */
export class MemoryQueuedAdmission<T> implements QueuedAdmission<T> {
  constructor(
    private readonly claims: MemoryClaimStore,
    private readonly queue: MemoryQueue<T>,
  ) {}

  async admit(key: string, data: T, value: string, ttlMs: number) {
    const standing = this.claims.keepIfAbsent(key, value, ttlMs);
    if (standing === undefined) await this.queue.enqueue(key, data);
    return standing;
  }
}
