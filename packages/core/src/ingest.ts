import { setTimeout as sleep } from "node:timers/promises";
import { SpanKind, trace } from "@opentelemetry/api";
import type { ChatEvent, Platform, QueuedEvent } from "./chat-event.ts";
import { toQueued } from "./chat-event.ts";
import { MalformedPayloadError, StoreUnavailableError, VerificationError } from "./errors.ts";
import type { EventGate } from "./event-gate.ts";
import { eventKey } from "./keys.ts";
import type { ClaimResult } from "./ports/claim-store.ts";
import type { JobQueue } from "./ports/job-queue.ts";
import type { Inbound, InboundRequest, PlatformAdapter } from "./ports/platform-adapter.ts";
import type { Logger, Telemetry, WorkspaceRef } from "./ports/telemetry.ts";
import type { TenantDirectory, Workspace } from "./ports/tenant-directory.ts";
import { deliveryContext, eventAttributes, inSpan, traceCarrier, tracer } from "./tracing.ts";

export interface IngestResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A gate and the queue behind it. The shared lane uses the cluster's store; the local lane is in-process. */
export interface Lane {
  gate: EventGate;
  queue: JobQueue<QueuedEvent>;
}

export interface IngestDeps {
  directory: TenantDirectory;
  adapters: ReadonlyMap<Platform, PlatformAdapter>;
  shared: Lane;
  /** Where fail-open workspaces go while the shared store is unreachable: best-effort, this instance only. */
  local: Lane;
  telemetry: Telemetry;
  logger: Logger;
  now?: () => number;
  /** How long a duplicate waits for the delivery it duplicates to be queued before asking for a retry. */
  inFlightWaitMs?: number;
}

const ok = (body: unknown = { ok: true }): IngestResponse => ({ status: 200, body });
const refuse = (status: number, error: string): IngestResponse => ({ status, body: { error } });
const retryLater = (error: string): IngestResponse => ({ ...refuse(503, error), headers: { "retry-after": "5" } });

/**
 * The receiving half of the pipeline: find the workspace, verify, normalize, gate, enqueue, ack.
 * Nothing here waits on the agent or the platform's API, so the ack stays well inside every platform's deadline.
 */
export class Ingest {
  private readonly now: () => number;

  constructor(private readonly deps: IngestDeps) {
    this.now = deps.now ?? Date.now;
  }

  async handle(platform: Platform, workspaceId: string, request: InboundRequest): Promise<IngestResponse> {
    const started = performance.now();
    const response = await this.receive(platform, workspaceId, request);
    this.deps.telemetry.acked(platform, response.status, performance.now() - started);
    return response;
  }

  private async receive(platform: Platform, workspaceId: string, request: InboundRequest): Promise<IngestResponse> {
    const arrivedAt = Date.now();
    const adapter = this.deps.adapters.get(platform);
    const workspace = adapter && (await this.deps.directory.workspace(workspaceId));
    if (!adapter || !workspace || workspace.platform !== platform) return refuse(404, "unknown workspace");

    const receivedAt = this.now();
    const verifyingAt = Date.now();
    let inbound: Inbound;
    let verifiedAt: number;
    try {
      await adapter.verify(request, workspace, receivedAt);
      verifiedAt = Date.now();
      inbound = adapter.normalize(request, workspace, receivedAt);
    } catch (error) {
      if (error instanceof VerificationError) return refuse(401, error.message);
      if (error instanceof MalformedPayloadError) return refuse(400, error.message);
      throw error;
    }
    if (inbound.kind !== "respond" && inbound.retry) {
      this.deps.telemetry.platformRetry(platform, inbound.retry.reason);
      this.deps.logger.info({ workspaceId, retry: inbound.retry }, "platform redelivery");
    }
    if (inbound.kind === "respond") return { status: inbound.status, body: inbound.body };
    if (inbound.kind === "ignore") return ok();
    const event = inbound.event;
    // The span begins at the delivery's arrival, though only now is it known which trace it belongs to.
    return inSpan(
      `ingest ${platform}`,
      { kind: SpanKind.SERVER, startTime: arrivedAt, attributes: eventAttributes(event) },
      async (span) => {
        if (inbound.retry) span.setAttribute("resident.platform_retry", inbound.retry.reason);
        tracer.startSpan("verify", { startTime: verifyingAt }).end(verifiedAt);
        const response = await this.admit(event, workspace);
        span.setAttribute("http.response.status_code", response.status);
        return response;
      },
      deliveryContext(eventKey(event)),
    );
  }

  private async admit(event: ChatEvent, workspace: Workspace): Promise<IngestResponse> {
    const ws: WorkspaceRef = { platform: event.platform, tenantId: event.tenantId, workspaceId: event.workspaceId };
    this.deps.telemetry.deliveryReceived(ws);
    try {
      return await this.admitThrough(this.deps.shared, event, workspace, ws);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      if (workspace.settings.failMode === "closed") {
        this.deps.logger.warn({ workspaceId: ws.workspaceId, err: error }, "store unavailable: refusing (fail closed)");
        return retryLater("store unavailable, retry later");
      }
      this.deps.telemetry.failOpenPass(ws);
      trace.getActiveSpan()?.addEvent("shared store unavailable: fail open");
      this.deps.logger.warn(
        { workspaceId: ws.workspaceId, err: error },
        "store unavailable: answering without the shared store (fail open); duplicates across instances are possible",
      );
      return this.admitThrough(this.deps.local, event, workspace, ws);
    }
  }

  private async admitThrough(lane: Lane, event: ChatEvent, workspace: Workspace, ws: WorkspaceRef) {
    const claim = await inSpan("gate", {}, async (span) => {
      const claim = await this.claimOrAwaitQueued(lane, event);
      span.setAttribute("resident.gate.outcome", claim.claimed ? "claimed" : claim.record.state);
      if (!claim.claimed && claim.record.state !== "in_progress") {
        span.addEvent("duplicate suppressed", { "resident.duplicate.layer": "event" });
      }
      return claim;
    });
    if (!claim.claimed) {
      if (claim.record.state === "in_progress") {
        // Its holder never queued it (it died, or lost the store, between claim and enqueue): acking this copy
        // would lose the message. The platform retries after the claim's lease has lapsed.
        return retryLater("this delivery is still being taken in elsewhere, retry later");
      }
      this.deps.telemetry.eventDuplicate(ws);
      return ok({ ok: true, duplicate: true });
    }
    try {
      await inSpan("enqueue", { kind: SpanKind.PRODUCER }, () =>
        lane.queue.enqueue(eventKey(event), { ...toQueued(event), trace: traceCarrier() }),
      );
    } catch (error) {
      await lane.gate.abandon(event, claim.token).catch(() => {});
      throw error;
    }
    // The job is durable now; should this mark fail, the lease lapses and a redelivery finds the job id taken.
    await lane.gate
      .markQueued(event, claim.token, workspace.settings.eventTtlSeconds * 1000)
      .catch((err) => this.deps.logger.warn({ err, workspaceId: ws.workspaceId }, "could not mark event queued"));
    return ok();
  }

  /**
   * A duplicate is acknowledged only once the delivery it duplicates is durably queued. A concurrent copy finds the
   * claim in progress for the milliseconds between claim and enqueue, so it asks again a few times; should the
   * claim be released meanwhile, asking again takes it.
   */
  private async claimOrAwaitQueued(lane: Lane, event: ChatEvent): Promise<ClaimResult> {
    const deadline = performance.now() + (this.deps.inFlightWaitMs ?? 1_000);
    let claim = await lane.gate.admit(event);
    for (let pause = 5; !claim.claimed && claim.record.state === "in_progress"; pause = Math.min(pause * 2, 100)) {
      if (performance.now() + pause > deadline) break;
      await sleep(pause);
      claim = await lane.gate.admit(event);
    }
    return claim;
  }
}
