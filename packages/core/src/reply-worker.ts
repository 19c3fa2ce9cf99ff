import { SpanKind, trace } from "@opentelemetry/api";
import { budgetReplies } from "./budget.ts";
import type { BudgetGuard } from "./budget-guard.ts";
import { type Platform, type QueuedEvent, startsThread } from "./chat-event.ts";
import { OutcomeUnknownError, PermanentSendError, ReplyLeaseHeldError, StoreUnavailableError } from "./errors.ts";
import { failureSummary } from "./failure-summary.ts";
import { conversationKey, replyKey } from "./keys.ts";
import type { HeldLease } from "./lease.ts";
import { warnUnlessAway } from "./outage-log.ts";
import type { Delivery, OutboundSender } from "./outbound-sender.ts";
import { type Agent, tokensUsed } from "./ports/agent.ts";
import type { ConversationMemory, Turn } from "./ports/conversation-memory.ts";
import type { Job } from "./ports/job-queue.ts";
import type { PlatformAdapter } from "./ports/platform-adapter.ts";
import type { FailureStage, Logger, Telemetry, WorkspaceRef } from "./ports/telemetry.ts";
import type { TenantDirectory, Workspace } from "./ports/tenant-directory.ts";
import { outcomeUnknown, type ReplyLedger, refusedForGood, type SendStart } from "./reply-ledger.ts";
import { ReplySend } from "./reply-send.ts";
import type { ThreadReader } from "./thread-reader.ts";
import { continuedContext, eventAttributes, inSpan } from "./tracing.ts";

export interface ReplyWorkerDeps {
  directory: TenantDirectory;
  adapters: ReadonlyMap<Platform, PlatformAdapter>;
  ledger: ReplyLedger;
  sender: OutboundSender;
  agent: Agent;
  memory: ConversationMemory;
  telemetry: Telemetry;
  logger: Logger;
  /** Turns of the thread given to the agent, and kept. */
  historyTurns?: number;
  historyTtlMs?: number;
  /** Holds answers to their budgets before the LLM is called; absent: no budgets. */
  budgets?: BudgetGuard;
  /** Reads the thread the agent is called into when it has no memory of it; absent: never read. */
  threads?: ThreadReader;
}

const commitAttempts = 3;

/**
 * The answering half of the pipeline, run by any instance for any queued event: claim the reply, ask the agent,
 * send once, commit. A thrown error hands the job back to the queue for a retry.
 */
export class ReplyWorker {
  /** Turns of the thread given to the agent, and kept. */
  private readonly historyTurns: number;

  constructor(private readonly deps: ReplyWorkerDeps) {
    this.historyTurns = deps.historyTurns ?? 20;
  }

  readonly handle = (job: Job<QueuedEvent>): Promise<void> =>
    inSpan(
      `answer ${job.data.platform}`,
      { kind: SpanKind.CONSUMER, attributes: { ...eventAttributes(job.data), "resident.job.attempt": job.attempt } },
      () => this.claimAndAnswer(job),
      continuedContext(job.data.trace),
    );

  private async claimAndAnswer(job: Job<QueuedEvent>): Promise<void> {
    const event = job.data;
    const ws: WorkspaceRef = { platform: event.platform, tenantId: event.tenantId, workspaceId: event.workspaceId };
    const workspace = await this.deps.directory.workspace(event.workspaceId);
    const adapter = this.deps.adapters.get(event.platform);
    if (!workspace || !adapter) {
      this.deps.logger.warn({ workspaceId: ws.workspaceId, jobId: job.id }, "workspace gone; dropping its job");
      return;
    }

    const claim = await inSpan("reply claim", {}, async (span) => {
      const claim = await this.deps.ledger.claim(event, job.id);
      span.setAttribute("resident.reply.outcome", claim.outcome);
      if (claim.outcome === "answered" || claim.outcome === "answering-elsewhere") {
        span.addEvent("duplicate suppressed", { "resident.duplicate.layer": "reply" });
      }
      return claim;
    });
    switch (claim.outcome) {
      case "answered":
      case "answering-elsewhere":
        this.deps.telemetry.replyDuplicate(ws);
        return;
      case "held-by-earlier-attempt":
        throw new ReplyLeaseHeldError(`an earlier attempt of ${job.id} still holds ${replyKey(event)}`);
      case "claimed":
        return this.answer(job, workspace, adapter, claim, ws);
    }
  }

  private async answer(
    job: Job<QueuedEvent>,
    workspace: Workspace,
    adapter: PlatformAdapter,
    { token, since, journaled, firstStep }: { token: string; since: number; journaled?: string; firstStep?: string },
    ws: WorkspaceRef,
  ): Promise<void> {
    const event = job.data;
    const { ledger, memory, telemetry } = this.deps;
    const lease = ledger.hold(event, token, since);
    const ttlMs = Math.min(
      workspace.settings.replyTtlSeconds * 1000,
      event.messageKeyWindowMs ?? Number.POSITIVE_INFINITY,
    );
    let stage: FailureStage = "agent";
    let send: ReplySend | undefined;
    let delivery: Delivery;
    let text: string;
    const working = this.indicator(adapter, workspace, event);
    try {
      // An earlier attempt's answer is posted as it was written: the LLM is asked once per message.
      if (journaled !== undefined) trace.getActiveSpan()?.addEvent("answer replayed from the journal");
      send = await ReplySend.begin(this.deps, { event, jobId: job.id, workspace, adapter, ttlMs, journaled });
      const hooks = { onText: send.onText, onStart: working.show };
      text =
        journaled ??
        (await send.journal(
          await this.compose(event, workspace, adapter, ws, lease, ttlMs, firstStep, hooks),
          lease.signal,
        ));
      stage = "send";
      // A typing indicator that landed after the answer would stand under it for seconds.
      await working.shown();
      delivery = await send.deliver(text, lease);
    } catch (error) {
      await send?.abandon();
      lease.stop();
      working.clear();
      telemetry.failure(ws, stage, failureSummary(error, workspace.credentials));
      this.deps.logger.warn(
        { err: error, workspaceId: ws.workspaceId, stage },
        error instanceof PermanentSendError
          ? "reply refused for good; the job ends"
          : "answer failed; the job will be retried",
      );
      // Only an unknown outcome, or a stream of its own opened (or maybe opened), may have posted; every other error
      // means nothing was. Its mark stays, so the next attempt reads the platform back instead of posting again.
      const mayHavePosted = error instanceof OutcomeUnknownError || send?.mayHavePosted === true;
      const sending = send?.sending;
      if (sending?.first && !mayHavePosted) await ledger.endSend(event, sending.token).catch(() => {});
      // Refused for good, the message stays unanswered: committing says so to every twin, and the queue stops here.
      if (error instanceof PermanentSendError) await ledger.commit(event, token, refusedForGood, ttlMs).catch(() => {});
      else await ledger.release(event, token).catch(() => {});
      throw error;
    }
    lease.stop();
    working.clear();

    // Posted (or possibly posted): from here nothing may throw, or the queue would retry and post again.
    if (delivery.status === "unknown") telemetry.outcomeUnknown(ws);
    const value = delivery.status === "sent" ? delivery.messageId : outcomeUnknown;
    if (!(await inSpan("commit", {}, async () => this.commit(event, token, value, ttlMs, send.sending)))) {
      telemetry.failure(ws, "commit", "the reply was posted but could not be recorded as sent");
    }
    telemetry.replySent(ws, Date.now() - event.receivedAt);
    const history = [
      { role: "user" as const, text: event.text },
      { role: "assistant" as const, text },
    ];
    await memory
      .append(conversationKey(event), history, this.historyTurns, this.deps.historyTtlMs ?? 7 * 86_400_000)
      .catch((err) =>
        warnUnlessAway(this.deps.logger, err, { workspaceId: ws.workspaceId }, "could not store thread memory"),
      );
  }

  /** Shows and clears the platform's working indicator, never failing the answer; cleared even if never shown. */
  private indicator<C>(adapter: PlatformAdapter<C>, workspace: Workspace<C>, event: QueuedEvent) {
    const question = { event, text: event.text, replyKey: replyKey(event) };
    const warn = (err: unknown) =>
      this.deps.logger.debug({ err, workspaceId: workspace.id }, "the working indicator failed");
    // A clear waits for the show before it, so that it is never overtaken and the status left standing.
    let shown: Promise<void> = Promise.resolve();
    return {
      show: (firstInThread: boolean) => {
        shown = adapter.working?.show(question, workspace, { firstInThread }).catch(warn) ?? shown;
      },
      /** Settles once the indicator is up (or failed): never rejects. */
      shown: () => shown,
      clear: () => {
        void shown.then(() => adapter.working?.clear(question, workspace)).catch(warn);
      },
    };
  }

  /** Asks the agent, with the thread's history, for the answer to the event. */
  private async compose(
    event: QueuedEvent,
    workspace: Workspace,
    adapter: PlatformAdapter,
    ws: WorkspaceRef,
    lease: HeldLease,
    ttlMs: number,
    firstStep: string | undefined,
    { onText, onStart }: ComposeHooks = {},
  ): Promise<string> {
    const verdict = await this.deps.budgets?.admit(ws, workspace.budgets);
    if (verdict && !verdict.within) {
      // Journaled and sent like any answer, so a retry or a twin never sends it twice.
      trace.getActiveSpan()?.addEvent("over budget", { "resident.budget.limit": verdict.limit });
      this.deps.telemetry.budgetExceeded(ws, verdict.limit);
      return budgetReplies[verdict.limit];
    }
    const history = await this.history(event, ws);
    onStart?.(history.length === 0);
    const { threads } = this.deps;
    const thread = history.length === 0 ? await threads?.read(event, workspace, adapter) : undefined;
    const started = performance.now();
    const answer = await inSpan("llm", { kind: SpanKind.CLIENT }, async (span) => {
      span.setAttributes({ "gen_ai.operation.name": "chat", "gen_ai.request.model": workspace.settings.model });
      const answer = await this.deps.agent.answer({
        event,
        settings: workspace.settings,
        history,
        thread,
        signal: lease.signal,
        toolServers: workspace.toolServers,
        ...(threads && { readThread: () => threads.read(event, workspace, adapter) }),
        journal: this.deps.ledger.toolJournal(event, ttlMs, firstStep),
        onToolCall: (report) => this.deps.telemetry.toolCalled(ws, report),
        ...(onText ? { onText } : {}),
      });
      span.setAttributes({
        "gen_ai.usage.input_tokens": answer.usage.inputTokens,
        "gen_ai.usage.output_tokens": answer.usage.outputTokens,
        "gen_ai.usage.cache_read_input_tokens": answer.usage.cacheReadTokens ?? 0,
        "gen_ai.usage.cache_creation_input_tokens": answer.usage.cacheWriteTokens ?? 0,
      });
      return answer;
    });
    this.deps.telemetry.llmUsed(ws, tokensUsed(answer.usage), performance.now() - started);
    await this.deps.budgets?.record(ws, tokensUsed(answer.usage), workspace.budgets);
    return answer.text;
  }

  /** The thread's remembered turns; a message that starts its thread has none, and costs no read. */
  private async history(event: QueuedEvent, ws: WorkspaceRef): Promise<Turn[]> {
    if (startsThread(event.conversation)) return [];
    return this.deps.memory.recent(conversationKey(event), this.historyTurns).catch((error: unknown) => {
      // An answer without the thread's history beats no answer while the store that keeps it is away.
      if (!(error instanceof StoreUnavailableError)) throw error;
      // Debug only: the store's outage itself is logged once, where it is detected.
      this.deps.logger.debug(
        { err: error.message, workspaceId: ws.workspaceId },
        "thread memory unavailable; answering without it",
      );
      return [];
    });
  }

  private async commit(
    event: QueuedEvent,
    token: string,
    value: string,
    ttlMs: number,
    sending: SendStart | undefined,
  ): Promise<boolean> {
    for (let attempt = 1; attempt <= commitAttempts; attempt++) {
      try {
        if (await this.deps.ledger.commit(event, token, value, ttlMs, sending)) return true;
        this.deps.logger.error({ replyKey: replyKey(event) }, "reply sent but its claim had passed to another owner");
        return false;
      } catch (err) {
        this.deps.logger.warn({ err, attempt, replyKey: replyKey(event) }, "could not commit a sent reply");
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
    return false;
  }
}

interface ComposeHooks {
  /** Receives the answer's text as the LLM writes it. */
  onText?: (delta: string) => void;
  /** Called as the agent is asked, with whether the thread had no history. */
  onStart?: (firstInThread: boolean) => void;
}
