import type { ChatEvent } from "./chat-event.ts";
import { admissionKey } from "./keys.ts";
import type { ClaimRecord, ClaimResult, ClaimStore } from "./ports/claim-store.ts";
import type { QueuedAdmission } from "./ports/queued-admission.ts";

/** The done record of a delivery whose job is queued. */
const queued = "queued";

/**
 * What the gate needs of a delivery: its workspace and its identity there (a ChatEvent, a feedback click's), and
 * the message it carries, if any (admissionKey).
 */
export type GatedDelivery = Pick<ChatEvent, "workspaceId" | "eventId"> &
  Partial<Pick<ChatEvent, "messageKey" | "messageKeyWindowMs">>;

/**
 * The first layer: one atomic claim per delivery identity, taken before anything with a side effect.
 * A claim is held only from the webhook's arrival until its job is durably queued; it then becomes a long-lived
 * `queued` marker, because from that moment the queue owns the work and a redelivery has nothing left to add. A lane
 * that can do all three in one step (admitQueued) writes the marker at once, and then no claim is ever in progress.
 * A crash between claim and enqueue is healed by the short lease and the platform's own retry. A feedback click goes
 * through the same gate, its `recorded` marker set once its vote is kept. The claim's key (`keyOf`) is also the id
 * its job is queued under, so whoever queues for it queues the one job.
 */
export class EventGate {
  /** The enqueues this instance runs for deliveries it claimed, until their queued mark has landed. */
  private readonly queuing = new Map<string, Promise<void>>();

  constructor(
    private readonly store: ClaimStore,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  keyOf(delivery: GatedDelivery): string {
    return admissionKey(delivery);
  }

  admit(event: GatedDelivery): Promise<ClaimResult> {
    return this.store.claim(this.keyOf(event), this.owner, this.leaseMs);
  }

  /**
   * Claims the delivery, queues its job `data` and marks it queued in one step (QueuedAdmission): resolves to
   * undefined once the job is durable, or to the record a duplicate found (and then changes nothing).
   */
  admitQueued<T>(
    event: GatedDelivery,
    admission: QueuedAdmission<T>,
    data: T,
    ttlMs: number,
  ): Promise<ClaimRecord | undefined> {
    return admission.admit(this.keyOf(event), data, queued, ttlMs);
  }

  /**
   * Once the job is durable, `queued` is true whoever holds the claim (a lapsed lease's successor queues under the
   * same id), so the mark is one plain write: no token to compare, one command on Redis instead of a script's three.
   */
  markQueued(event: GatedDelivery, ttlMs: number): Promise<boolean> {
    return this.store.settle(this.keyOf(event), queued, ttlMs);
  }

  /**
   * Queues a claimed delivery's job (`enqueue`), then marks it queued without waiting. Until the mark lands, a
   * duplicate reaching this instance waits on this enqueue (`queuedHere`) rather than queuing under the same id again.
   * Resolves once the job is durable; rejects as `enqueue` did. `onUnmarked` hears of a mark that failed.
   */
  async queue(
    event: GatedDelivery,
    enqueue: () => Promise<void>,
    ttlMs: number,
    onUnmarked: (err: unknown) => void,
  ): Promise<void> {
    const key = this.keyOf(event);
    const queued = enqueue();
    this.queuing.set(key, queued);
    const forget = () => {
      if (this.queuing.get(key) === queued) this.queuing.delete(key);
    };
    try {
      await queued;
    } catch (error) {
      forget();
      throw error;
    }
    void this.markQueued(event, ttlMs).catch(onUnmarked).finally(forget);
  }

  /** The enqueue this instance is running for the delivery, if any: settles once its job is durable or failed. */
  queuedHere(event: GatedDelivery): Promise<void> | undefined {
    return this.queuing.get(this.keyOf(event));
  }

  markRecorded(delivery: GatedDelivery, token: string, ttlMs: number): Promise<boolean> {
    return this.store.commit(this.keyOf(delivery), token, "recorded", ttlMs);
  }

  abandon(event: GatedDelivery, token: string): Promise<boolean> {
    return this.store.release(this.keyOf(event), token);
  }
}
