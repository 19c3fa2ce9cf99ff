import type { QueuedEvent } from "./chat-event.ts";
import { agentStepKey, answerKey, replyKey, sendingKey, streamKey } from "./keys.ts";
import { type HeldLease, LeaseKeeper } from "./lease.ts";
import type { ClaimStore } from "./ports/claim-store.ts";
import { ToolJournal } from "./tool-journal.ts";

export type ReplyClaim =
  /**
   * Read with the claim, as earlier attempts left them: `journaled`, the answer; `firstStep`, the tool-use loop's
   * turn at step 0 (the ToolJournal's first read). `since`: when the claim was sent (performance.now()), the
   * earliest its lease can have begun.
   */
  | { outcome: "claimed"; token: string; since: number; journaled?: string; firstStep?: string }
  /** The message was answered already. */
  | { outcome: "answered" }
  /** A twin job (another delivery of the same message) is answering it now; its own job will finish the work. */
  | { outcome: "answering-elsewhere" }
  /** This very job's earlier attempt still holds the lease (it died or stalled): wait for the lease to lapse. */
  | { outcome: "held-by-earlier-attempt" };

/** Value committed when a send's outcome could not be established: the message is never sent again. */
export const outcomeUnknown = "outcome-unknown";

/** Value committed when the platform refused the post for good: no job answers the message again. */
export const refusedForGood = "refused";

/** Whether this claim's holder is the first to post the reply, or follows one that died while posting. */
export type SendStart = { first: true; token: string } | { first: false };

/**
 * The second layer: one claim per user message (its `messageKey`), taken before the agent runs, so neither the
 * LLM nor the platform sees a twin. Claims name the job that holds them, which tells a twin from a retry.
 *
 * Posting is marked on a key of its own that outlives the claim's lease: a holder that dies after the platform
 * accepted its post but before the commit leaves the mark, and whoever claims the reply next reads the platform
 * back before posting.
 *
 * The answer is journaled beside the claim before it is sent, so the LLM is asked once per message: a retry after a
 * failed send, or a takeover after its holder died, posts the journaled text.
 */
export class ReplyLedger {
  private readonly leases: LeaseKeeper;

  constructor(
    private readonly store: ClaimStore,
    private readonly leaseMs: number,
  ) {
    this.leases = new LeaseKeeper(store, leaseMs);
  }

  async claim(event: QueuedEvent, jobId: string): Promise<ReplyClaim> {
    const [answer, firstStep] = [answerKey(event), agentStepKey(event, 0)];
    const since = performance.now();
    const result = await this.store.claim(replyKey(event), jobId, this.leaseMs, [answer, firstStep]);
    if (result.claimed) {
      const { token, journaled } = result;
      return { outcome: "claimed", token, since, journaled: journaled?.[answer], firstStep: journaled?.[firstStep] };
    }
    if (result.record.state === "done") return { outcome: "answered" };
    return result.record.owner === jobId ? { outcome: "held-by-earlier-attempt" } : { outcome: "answering-elsewhere" };
  }

  /** Holds the claim taken at `since` (the claim's own), renewing it with every other claim held while work runs. */
  hold(event: QueuedEvent, token: string, since?: number): HeldLease {
    return this.leases.hold(replyKey(event), token, since);
  }

  /**
   * Records what was posted (the platform's message id, or `outcomeUnknown`). A first sender's mark ends with the
   * commit, in the same step: once the reply is recorded nobody needs to read the platform back.
   */
  commit(event: QueuedEvent, token: string, value: string, ttlMs: number, sending?: SendStart): Promise<boolean> {
    const mark = sending?.first ? { key: sendingKey(event), token: sending.token } : undefined;
    return this.store.commit(replyKey(event), token, value, ttlMs, mark);
  }

  release(event: QueuedEvent, token: string): Promise<boolean> {
    return this.store.release(replyKey(event), token);
  }

  /** Keeps the answer until the reply's own marker lapses; resolves to the answer that stands (the first kept). */
  journalAnswer(event: QueuedEvent, text: string, ttlMs: number): Promise<string> {
    return this.store.journal(answerKey(event), text, ttlMs);
  }

  /**
   * The tool-use loop's recovery points for the message, kept as long as its answer; `firstStep` is step 0 as the
   * claim read it.
   */
  toolJournal(event: QueuedEvent, ttlMs: number, firstStep: string | undefined): ToolJournal {
    return new ToolJournal(this.store, event, ttlMs, new Map([[0, firstStep]]));
  }

  /** Records the streamed reply's platform id at its first write; resolves to the id that stands (the first). */
  recordStream(event: QueuedEvent, messageId: string, ttlMs: number): Promise<string> {
    return this.store.journal(streamKey(event), messageId, ttlMs);
  }

  /** The platform id of the reply an earlier attempt began to stream, if any. */
  streamedMessage(event: QueuedEvent): Promise<string | undefined> {
    return this.store.journaled(streamKey(event));
  }

  /** Marks the post as under way, for as long as the reply's own marker will live. */
  async beginSend(event: QueuedEvent, jobId: string, ttlMs: number): Promise<SendStart> {
    const mark = await this.store.claim(sendingKey(event), jobId, ttlMs);
    return mark.claimed ? { first: true, token: mark.token } : { first: false };
  }

  /**
   * `journalAnswer` and `beginSend` in one step (one statement on PostgreSQL): the answer that stands, and whether
   * this holder posts first. For a post, whose mark is taken once the answer is written.
   */
  async journalAndBeginSend(
    event: QueuedEvent,
    text: string,
    jobId: string,
    ttlMs: number,
  ): Promise<{ text: string; sending: SendStart }> {
    const { journaled, claim } = await this.store.journalAndClaim(
      { key: answerKey(event), value: text, ttlMs },
      sendingKey(event),
      jobId,
      ttlMs,
    );
    return { text: journaled, sending: claim.claimed ? { first: true, token: claim.token } : { first: false } };
  }

  /** Clears the mark once its post certainly failed (a commit clears it otherwise). */
  endSend(event: QueuedEvent, token: string): Promise<boolean> {
    return this.store.release(sendingKey(event), token);
  }
}
