import { SpanKind } from "@opentelemetry/api";
import type { Platform } from "./chat-event.ts";
import { DatabaseUnavailableError, MalformedPayloadError, StoreUnavailableError, VerificationError } from "./errors.ts";
import type { FeedbackClick } from "./feedback.ts";
import type { FeedbackIntake } from "./feedback-intake.ts";
import { type IngestResponse, ok, refuse, retryLater } from "./ingest-response.ts";
import { eventKey } from "./keys.ts";
import { LaneAdmission, type LaneDeps } from "./lane-admission.ts";
import type { AppDistribution, AppInstallations } from "./ports/app-distribution.ts";
import type { Inbound, InboundRequest, PlatformAdapter } from "./ports/platform-adapter.ts";
import type { TenantDirectory, Workspace } from "./ports/tenant-directory.ts";
import { deliveryContext, eventAttributes, inSpan, tracer } from "./tracing.ts";

export interface IngestDeps extends LaneDeps {
  directory: TenantDirectory;
  adapters: ReadonlyMap<Platform, PlatformAdapter>;
  /** Routes the deliveries of the operator's distributed apps, and disables a workspace whose access was revoked. */
  installations?: AppInstallations;
  /** Counts clicks on our answers' feedback buttons, through the shared and standby lanes' gates. */
  feedback: FeedbackIntake;
  now?: () => number;
}

/**
 * How a delivery reached us: a workspace's webhook; a connection a receiver holds open to the platform; or the one
 * URL of a distributed app, verified there with the app's secret before its workspace was known.
 */
export type Ingress = "webhook" | "connection" | "app";

/**
 * The receiving half of the pipeline: find the workspace, verify, normalize, gate, enqueue, ack.
 * Nothing here waits on the agent or the platform's API, so the ack stays well inside every platform's deadline.
 */
export class Ingest {
  private readonly now: () => number;
  private readonly admission: LaneAdmission;

  constructor(private readonly deps: IngestDeps) {
    this.now = deps.now ?? Date.now;
    this.admission = new LaneAdmission(deps);
  }

  /**
   * `via` says how the delivery came: a webhook is verified (its signature, its token); one that came over a
   * connection we opened with the workspace's credentials (a receiver) was authenticated by opening it.
   */
  async handle(
    platform: Platform,
    workspaceId: string,
    request: InboundRequest,
    via: Ingress = "webhook",
  ): Promise<IngestResponse> {
    const started = performance.now();
    const response = await this.receive(platform, workspaceId, request, via);
    this.deps.telemetry.acked(platform, response.status, performance.now() - started);
    return response;
  }

  /**
   * A delivery at a distributed app's one URL (or over its connections): verified with the app's secret, routed to
   * the installation it names, and from there the same path as a workspace's webhook. An installation nobody made is
   * an unknown workspace.
   */
  async handleApp(
    platform: Platform,
    app: AppDistribution,
    request: InboundRequest,
    via: Exclude<Ingress, "app"> = "webhook",
  ): Promise<IngestResponse> {
    const started = performance.now();
    const response = await this.receiveForApp(platform, app, request, via);
    this.deps.telemetry.acked(platform, response.status, performance.now() - started);
    return response;
  }

  private async receiveForApp(
    platform: Platform,
    app: AppDistribution,
    request: InboundRequest,
    via: Exclude<Ingress, "app">,
  ): Promise<IngestResponse> {
    let delivery: ReturnType<AppDistribution["route"]>;
    try {
      // Over a connection opened with the app's own token, the connection was the proof.
      if (via === "webhook") app.verify(request, this.now());
      delivery = app.route(request);
    } catch (error) {
      if (error instanceof VerificationError) return refuse(401, error.message);
      if (error instanceof MalformedPayloadError) return refuse(400, error.message);
      throw error;
    }
    if (delivery.kind === "respond") return { status: delivery.status, body: delivery.body };
    let workspaceId: string | undefined;
    try {
      workspaceId = await this.deps.installations?.workspaceFor(platform, delivery.keys);
    } catch (error) {
      if (error instanceof DatabaseUnavailableError) return retryLater("workspace directory unavailable, retry later");
      throw error;
    }
    if (!workspaceId) return refuse(404, "unknown workspace");
    return this.receive(platform, workspaceId, request, "app");
  }

  private async receive(
    platform: Platform,
    workspaceId: string,
    request: InboundRequest,
    via: Ingress,
  ): Promise<IngestResponse> {
    const arrivedAt = Date.now();
    const adapter = this.deps.adapters.get(platform);
    let workspace: Workspace | undefined;
    try {
      workspace = adapter && (await this.deps.directory.workspace(workspaceId));
    } catch (error) {
      // Never seen by this instance while the database is away: whether it exists cannot be told yet.
      if (error instanceof DatabaseUnavailableError) return retryLater("workspace directory unavailable, retry later");
      throw error;
    }
    if (!adapter || !workspace || workspace.platform !== platform) return refuse(404, "unknown workspace");

    const receivedAt = this.now();
    const verifyingAt = Date.now();
    let inbound: Inbound;
    let verifiedAt: number;
    try {
      if (via === "webhook") await adapter.verify(request, workspace, receivedAt);
      verifiedAt = Date.now();
      inbound = adapter.normalize(request, workspace, receivedAt);
    } catch (error) {
      if (error instanceof VerificationError) return refuse(401, error.message);
      if (error instanceof MalformedPayloadError) return refuse(400, error.message);
      throw error;
    }
    if ("retry" in inbound && inbound.retry) {
      this.deps.telemetry.platformRetry(platform, inbound.retry.reason);
      this.deps.logger.info({ workspaceId, retry: inbound.retry }, "platform redelivery");
    }
    if (inbound.kind === "respond") return { status: inbound.status, body: inbound.body };
    if (inbound.kind === "ignore") return ok();
    if (inbound.kind === "revoked") return this.revoke(workspace, inbound.reason);
    if (inbound.kind === "notice") {
      // Idempotent acts (offering prompts), not answers: a redelivery repeats them harmlessly.
      inbound.act().catch((err) => this.deps.logger.warn({ err, workspaceId }, `could not act on ${inbound.reason}`));
      return ok();
    }
    if (inbound.kind === "feedback") return this.takeFeedback(inbound.click, workspace);
    const event = inbound.event;
    // The span begins at the delivery's arrival, though only now is it known which trace it belongs to.
    return inSpan(
      `ingest ${platform}`,
      { kind: SpanKind.SERVER, startTime: arrivedAt, attributes: eventAttributes(event) },
      async (span) => {
        if (inbound.retry) span.setAttribute("resident.platform_retry", inbound.retry.reason);
        if (span.isRecording()) tracer.startSpan("verify", { startTime: verifyingAt }).end(verifiedAt);
        const response = await this.admission.admit(event, workspace);
        span.setAttribute("http.response.status_code", response.status);
        return response;
      },
      deliveryContext(eventKey(event)),
    );
  }

  /** Nothing more is answered for the workspace; a redelivery of the notice finds it unknown. */
  private async revoke(workspace: Workspace, reason: string): Promise<IngestResponse> {
    const { installations, logger } = this.deps;
    if (!installations) {
      logger.warn({ workspaceId: workspace.id, reason }, "access revoked, but nothing here can disable the workspace");
      return ok();
    }
    try {
      await installations.disable(workspace.id, reason);
    } catch (error) {
      if (error instanceof DatabaseUnavailableError) return retryLater("workspace directory unavailable, retry later");
      throw error;
    }
    logger.warn({ workspaceId: workspace.id, reason }, "workspace disabled: the platform revoked our access");
    return ok();
  }

  /** A vote needs the database that keeps it, so no fail mode applies: while it is away the platform is told to retry. */
  private async takeFeedback(click: FeedbackClick, workspace: Workspace): Promise<IngestResponse> {
    try {
      const outcome = await this.deps.feedback.take(click, workspace.settings.eventTtlSeconds * 1000);
      return ok(outcome === "duplicate" ? { ok: true, duplicate: true } : { ok: true });
    } catch (error) {
      if (error instanceof StoreUnavailableError || error instanceof DatabaseUnavailableError) {
        this.deps.logger.warn({ workspaceId: workspace.id, err: error }, "feedback not recorded: stores unavailable");
        return retryLater("feedback could not be recorded, retry later");
      }
      throw error;
    }
  }
}
