import { type Span, SpanKind, trace } from "@opentelemetry/api";
import type { ChatEvent, QueuedEvent } from "./chat-event.ts";
import { StoreUnavailableError } from "./errors.ts";
import type { EventGate } from "./event-gate.ts";
import { type IngestResponse, ok, retryLater } from "./ingest-response.ts";
import type { ClaimRecord } from "./ports/claim-store.ts";
import type { EnqueueOptions, JobQueue } from "./ports/job-queue.ts";
import type { QueuedAdmission } from "./ports/queued-admission.ts";
import type { Logger, Telemetry, WorkspaceRef } from "./ports/telemetry.ts";
import type { Workspace } from "./ports/tenant-directory.ts";
import { inSpan, traceCarrier } from "./tracing.ts";

/**
 * A gate and the queue behind it. The shared lane uses the cluster's fast store (Redis); the standby lane the
 * database every instance shares (PostgreSQL), while the shared one is unreachable; the local lane is in-process.
 */
export interface Lane {
  gate: EventGate;
  queue: JobQueue<QueuedEvent>;
  /** The gate's claim, the enqueue and the queued mark in one step, where the lane's store can do that. */
  admission?: QueuedAdmission<QueuedEvent>;
}

export interface LaneDeps {
  shared: Lane;
  /** Takes deliveries in while the shared lane cannot (see packages/core/README.md, "When a store is away"). */
  standby?: Lane;
  /** Where fail-open workspaces go while neither shared lane can be reached: best-effort, this instance only. */
  local: Lane;
  telemetry: Telemetry;
  logger: Logger;
}

/** Admits a verified event through the first lane that can take it: claimed once, queued durably, acked. */
export class LaneAdmission {
  /** The shared lane, then the standby lane where there is one. */
  private readonly lanes: readonly Lane[];

  constructor(private readonly deps: LaneDeps) {
    this.lanes = deps.standby ? [deps.shared, deps.standby] : [deps.shared];
  }

  /**
   * The shared lane first, then the standby lane, then the workspace's fail mode (packages/core/README.md, "When a
   * store is away").
   */
  async admit(event: ChatEvent, workspace: Workspace): Promise<IngestResponse> {
    const ws: WorkspaceRef = { platform: event.platform, tenantId: event.tenantId, workspaceId: event.workspaceId };
    this.deps.telemetry.deliveryReceived(ws);
    let unavailable: StoreUnavailableError | undefined;
    for (const lane of this.lanes) {
      if (lane === this.deps.standby) {
        this.deps.telemetry.standbyPass(ws);
        trace.getActiveSpan()?.addEvent("shared store unavailable: standby lane");
      }
      try {
        return await this.admitThrough(lane, event, workspace, ws);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        unavailable = error;
      }
    }
    if (workspace.settings.failMode === "closed") {
      this.deps.logger.warn(
        { workspaceId: ws.workspaceId, err: unavailable },
        "stores unavailable: refusing (fail closed)",
      );
      return retryLater("store unavailable, retry later");
    }
    this.deps.telemetry.failOpenPass(ws);
    trace.getActiveSpan()?.addEvent("shared stores unavailable: fail open");
    this.deps.logger.warn(
      { workspaceId: ws.workspaceId, err: unavailable },
      "stores unavailable: answering without a shared store (fail open); duplicates across instances are possible",
    );
    return this.admitThrough(this.deps.local, event, workspace, ws);
  }

  /** Claims the delivery and queues its job: in one step where the lane can (QueuedAdmission), else in three. */
  private admitThrough(lane: Lane, event: ChatEvent, workspace: Workspace, ws: WorkspaceRef) {
    const ttlMs = workspace.settings.eventTtlSeconds * 1000;
    return lane.admission
      ? this.admitQueued(lane, lane.admission, event, ttlMs, ws)
      : this.claimThenQueue(lane, event, ttlMs, ws);
  }

  /** The gate's claim, the enqueue and the queued mark in one call: acked once it returns. */
  private async admitQueued(
    lane: Lane,
    admission: QueuedAdmission<QueuedEvent>,
    event: ChatEvent,
    ttlMs: number,
    ws: WorkspaceRef,
  ): Promise<IngestResponse> {
    // This gate queues the job, so its span is the producer whose context the job carries to the worker.
    const standing = await inSpan("gate", { kind: SpanKind.PRODUCER }, async (span) => {
      const record = await lane.gate.admitQueued(event, admission, this.job(event), ttlMs);
      gateOutcome(span, record);
      return record;
    });
    return standing ? this.duplicate(lane, event, standing, ws) : ok();
  }

  /**
   * Claims the delivery, enqueues its job, then marks it queued. Once the job is durable the ack does not wait for
   * the mark: until it lands a redelivery finds the claim in progress and queues under the same id, which the queue
   * adds once; should it fail, the lease lapses and a redelivery finds the job id taken. One round trip off every ack.
   */
  private async claimThenQueue(lane: Lane, event: ChatEvent, ttlMs: number, ws: WorkspaceRef): Promise<IngestResponse> {
    const claim = await inSpan("gate", { kind: SpanKind.INTERNAL }, async (span) => {
      const result = await lane.gate.admit(event);
      gateOutcome(span, result.claimed ? undefined : result.record);
      return result;
    });
    if (!claim.claimed) return this.duplicate(lane, event, claim.record, ws);
    try {
      await lane.gate.queue(
        event,
        () => this.enqueue(lane, event),
        ttlMs,
        (err) => this.deps.logger.warn({ err, workspaceId: ws.workspaceId }, "could not mark event queued"),
      );
    } catch (error) {
      await lane.gate.abandon(event, claim.token).catch(() => {});
      throw error;
    }
    return ok();
  }

  /**
   * A duplicate is acknowledged only once the delivery it duplicates is durably queued: one that finds the claim
   * still in progress (its holder is between claim and enqueue — or died there, or is on a two-step lane) queues the
   * job itself under the same id, which the queue adds once, rather than trusting the holder.
   */
  private async duplicate(lane: Lane, event: ChatEvent, standing: ClaimRecord, ws: WorkspaceRef) {
    if (standing.state === "in_progress") await this.queuedAlready(lane, event);
    this.deps.telemetry.eventDuplicate(ws);
    return ok({ ok: true, duplicate: true });
  }

  /**
   * A duplicate of a delivery still in progress is acked once its job is durable: after the enqueue this instance
   * runs for it, if any (no store round trip), else after queuing it under the same id, which the queue adds once.
   */
  private async queuedAlready(lane: Lane, event: ChatEvent): Promise<void> {
    const queuedHere = await lane.gate.queuedHere(event)?.then(
      () => true,
      () => false,
    );
    if (!queuedHere) await this.enqueue(lane, event, { probablyStored: true });
  }

  private enqueue(lane: Lane, event: ChatEvent, options?: EnqueueOptions): Promise<void> {
    return inSpan("enqueue", { kind: SpanKind.PRODUCER }, () =>
      lane.queue.enqueue(lane.gate.keyOf(event), this.job(event), options),
    );
  }

  private job(event: ChatEvent): QueuedEvent {
    const trace = traceCarrier();
    return trace ? { ...event, trace } : event;
  }
}

/** What the gate's span says: claimed, or the state of the record a duplicate found. */
function gateOutcome(span: Span, standing: ClaimRecord | undefined): void {
  span.setAttribute("resident.gate.outcome", standing ? standing.state : "claimed");
  if (standing) span.addEvent("duplicate suppressed", { "resident.duplicate.layer": "event" });
}
