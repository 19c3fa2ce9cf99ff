import type { ChatEvent } from "./chat-event.ts";
import { eventKey } from "./keys.ts";
import type { ClaimResult, ClaimStore } from "./ports/claim-store.ts";

/**
 * The first layer: one atomic claim per delivery identity, taken before anything with a side effect.
 * A claim is held only from the webhook's arrival until its job is durably queued; it then becomes a long-lived
 * `queued` marker, because from that moment the queue owns the work and a redelivery has nothing left to add.
 * A crash between claim and enqueue is healed by the short lease and the platform's own retry.
 */
export class EventGate {
  constructor(
    private readonly store: ClaimStore,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  admit(event: ChatEvent): Promise<ClaimResult> {
    return this.store.claim(eventKey(event), this.owner, this.leaseMs);
  }

  markQueued(event: ChatEvent, token: string, ttlMs: number): Promise<boolean> {
    return this.store.commit(eventKey(event), token, "queued", ttlMs);
  }

  abandon(event: ChatEvent, token: string): Promise<boolean> {
    return this.store.release(eventKey(event), token);
  }
}
