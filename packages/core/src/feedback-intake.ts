import { StoreUnavailableError } from "./errors.ts";
import type { EventGate, GatedDelivery } from "./event-gate.ts";
import { clickDeliveryId, type FeedbackClick } from "./feedback.ts";
import type { FeedbackLedger } from "./ports/feedback-ledger.ts";

/** `counted`: the click is the person's vote now; `unchanged`: a newer vote stands; `duplicate`: a delivery seen before. */
export type FeedbackOutcome = "counted" | "unchanged" | "duplicate";

/**
 * Takes a feedback click in like any delivery: its claim in the first gate that answers (the shared store's, else
 * the standby's), then its vote in the ledger, then the claim marked recorded for the workspace's event TTL. Nothing
 * is queued: the ledger's write is one statement, well inside every platform's deadline.
 *
 * The gate saves the database the work of a redelivery; the ledger is what makes a click count once. A copy that
 * finds the claim still in progress (its holder is mid-write, or died there) records the click itself rather than
 * trust the holder, which the ledger keeps once; and should the claim lapse after the write, the ledger meets the
 * same click again and keeps nothing new.
 */
export class FeedbackIntake {
  constructor(
    private readonly gates: readonly EventGate[],
    private readonly ledger: FeedbackLedger,
  ) {}

  /** Rejects with StoreUnavailableError when no gate answers, and with the ledger's error when it cannot write. */
  async take(click: FeedbackClick, ttlMs: number): Promise<FeedbackOutcome> {
    let unavailable: StoreUnavailableError | undefined;
    for (const gate of this.gates) {
      try {
        return await this.through(gate, click, ttlMs);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        unavailable = error;
      }
    }
    throw unavailable ?? new StoreUnavailableError("no gate to take feedback through");
  }

  private async through(gate: EventGate, click: FeedbackClick, ttlMs: number): Promise<FeedbackOutcome> {
    const delivery: GatedDelivery = { workspaceId: click.workspaceId, eventId: clickDeliveryId(click) };
    const claim = await gate.admit(delivery);
    if (!claim.claimed) {
      if (claim.record.state === "in_progress") await this.ledger.record(click);
      return "duplicate";
    }
    let counted: boolean;
    try {
      counted = await this.ledger.record(click);
    } catch (error) {
      await gate.abandon(delivery, claim.token).catch(() => {});
      throw error;
    }
    // The vote is kept; should this mark not land, the lease lapses and a redelivery meets the ledger's record.
    await gate.markRecorded(delivery, claim.token, ttlMs).catch(() => {});
    return counted ? "counted" : "unchanged";
  }
}
