import type { ClaimRecord } from "./claim-store.ts";

/**
 * A lane's gate and queue in one atomic step, where its store can do that (one script on Redis standalone; not on a
 * Cluster, whose gate keys and queue keys live in different slots): the gate's claim, the enqueue and the `queued`
 * mark at once, so such a delivery is never seen in progress. A lane without it claims, then enqueues, then marks.
 */
export interface QueuedAdmission<T> {
  /**
   * When `key` is absent: adds the job `key` with `data` (once, as JobQueue.enqueue: an id the queue knows is not
   * added again) and keeps `key` as done{value} for `ttlMs`; resolves to undefined. When `key` is present: changes
   * nothing and resolves to the record standing there. Rejects with StoreUnavailableError as the lane's ports do.
   */
  admit(key: string, data: T, value: string, ttlMs: number): Promise<ClaimRecord | undefined>;
}
