import { createHash, randomUUID } from "node:crypto";
import type { QueuedEvent } from "./chat-event.ts";
import { agentStepKey, toolCallKey } from "./keys.ts";
import type { AgentJournal, ToolCallRun, ToolOutcome } from "./ports/agent.ts";
import type { ClaimStore } from "./ports/claim-store.ts";

/** What the model is told in place of a result that an earlier attempt never recorded. */
export const diedMidCall = "an earlier attempt started this call and stopped before its outcome was recorded";

/**
 * The tool-use loop's recovery points for one user message, in the reply ledger's store (one authority, beside the
 * reply claim). Every record is written once, first writer wins:
 *
 *   step:{ws}:{message}:{n}            the model's turn at step n (its tool calls), so a replay asks the same tools
 *   toolcall:{ws}:{message}:{n}:{i}    the outcome of the i-th call of step n
 *   toolcall:…:begun                   that some attempt sent the call: with no outcome beside it, the outcome is
 *                                      unknown, and the call is not sent again
 *
 * Two attempts racing (a holder whose lease lapsed unseen, and its successor) agree on every outcome: whoever writes
 * first decides, and the other reads what stands.
 */
export class ToolJournal implements AgentJournal {
  constructor(
    private readonly store: ClaimStore,
    private readonly event: Pick<QueuedEvent, "workspaceId" | "messageKey">,
    private readonly ttlMs: number,
    /**
     * Steps read already, with the reply claim (one statement fewer a message). Read after the claim was taken, as
     * the store's own read would be: a turn a racing attempt keeps later is what keepStep hands back.
     */
    private readonly readSteps: ReadonlyMap<number, string | undefined> = new Map(),
  ) {}

  async step(step: number): Promise<string | undefined> {
    if (this.readSteps.has(step)) return this.readSteps.get(step);
    return this.store.journaled(agentStepKey(this.event, step));
  }

  keepStep(step: number, turn: string): Promise<string> {
    return this.store.journal(agentStepKey(this.event, step), turn, this.ttlMs);
  }

  async call(step: number, index: number, run: ToolCallRun): Promise<{ outcome: ToolOutcome; replayed: boolean }> {
    const key = toolCallKey(this.event, step, index);
    const kept = await this.store.journaled(key);
    if (kept !== undefined) return { outcome: JSON.parse(kept) as ToolOutcome, replayed: true };
    const attempt = randomUUID();
    if ((await this.store.journal(`${key}:begun`, attempt, this.ttlMs)) !== attempt) {
      return { outcome: await this.keep(key, { status: "unknown", reason: diedMidCall }), replayed: true };
    }
    return { outcome: await this.keep(key, await run(idempotencyKey(key))), replayed: false };
  }

  private async keep(key: string, outcome: ToolOutcome): Promise<ToolOutcome> {
    return JSON.parse(await this.store.journal(key, JSON.stringify(outcome), this.ttlMs)) as ToolOutcome;
  }
}

/**
 * The key a tool server may deduplicate by: the same for every attempt at one call, different for every call. A
 * hash, so the message's identity (channel and timestamp) does not travel to a third party.
 */
export function idempotencyKey(callKey: string): string {
  return `resident-${createHash("sha256").update(callKey).digest("hex").slice(0, 40)}`;
}

/** The `_meta` field of a `tools/call` request that carries its idempotency key. */
export const idempotencyMetaKey = "io.resident/idempotency-key";
