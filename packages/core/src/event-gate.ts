import type { ChatEvent } from "./chat-event.ts";
import { eventKey } from "./keys.ts";
import type { ClaimResult, ClaimStore } from "./ports/claim-store.ts";

/** What the gate needs of a delivery: its workspace and its identity there (a ChatEvent, a feedback click's). */
export type GatedDelivery = Pick<ChatEvent, "workspaceId" | "eventId">;

/**
 * The first layer: one atomic claim per delivery identity, taken before anything with a side effect.
 * A claim is held only from the webhook's arrival until its job is durably queued; it then becomes a long-lived
 * `queued` marker, because from that moment the queue owns the work and a redelivery has nothing left to add.
 * A crash between claim and enqueue is healed by the short lease and the platform's own retry. A feedback click goes
 * through the same gate, its `recorded` marker set once its vote is kept.
 */
export class EventGate {
  constructor(
    private readonly store: ClaimStore,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  admit(event: GatedDelivery): Promise<ClaimResult> {
    return this.store.claim(eventKey(event), this.owner, this.leaseMs);
  }

  /**
   * Once the job is durable, `queued` is true whoever holds the claim (a lapsed lease's successor queues under the
   * same id), so the mark is one plain write: no token to compare, one command on Redis instead of a script's three.
   */
  markQueued(event: GatedDelivery, ttlMs: number): Promise<boolean> {
    return this.store.settle(eventKey(event), "queued", ttlMs);
  }

  markRecorded(delivery: GatedDelivery, token: string, ttlMs: number): Promise<boolean> {
    return this.store.commit(eventKey(delivery), token, "recorded", ttlMs);
  }

  abandon(event: GatedDelivery, token: string): Promise<boolean> {
    return this.store.release(eventKey(event), token);
  }
}
