import type {
  BudgetLimit,
  FailureStage,
  Logger,
  Platform,
  StatCounts,
  StatsStore,
  Telemetry,
  ToolCallReport,
  WorkspaceActivity,
  WorkspaceRef,
} from "@resident/core";
import { warnUnlessAway } from "@resident/core";
import { latestActivity } from "@resident/store";
import type { Metrics } from "./metrics.ts";

/** What one workspace counted since the last flush. */
interface PendingStats {
  ws: WorkspaceRef;
  counts: Partial<StatCounts>;
  activity: WorkspaceActivity;
}

/**
 * Reports the pipeline twice: to this instance's Prometheus metrics at once, and to the cluster-wide stats store
 * (counters, latest activity, series) in batches. Batching keeps the ack path at its one store round trip and makes
 * a stats outage cost nothing but a late count.
 */
export class ServiceTelemetry implements Telemetry {
  private pending = new Map<string, PendingStats>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly metrics: Metrics,
    private readonly stats: StatsStore,
    private readonly logger: Logger,
    flushEveryMs = 1000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushEveryMs);
    this.timer.unref();
  }

  deliveryReceived(ws: WorkspaceRef): void {
    this.metrics.deliveries.inc({ platform: ws.platform });
    this.count(ws, "events", 1, { lastEventAt: Date.now() });
  }

  platformRetry(platform: Platform, reason: string): void {
    this.metrics.platformRetries.inc({ platform, reason });
  }

  eventDuplicate(ws: WorkspaceRef): void {
    this.metrics.duplicates.inc({ platform: ws.platform, layer: "event" });
    this.count(ws, "duplicateEvents");
  }

  standbyPass(ws: WorkspaceRef): void {
    this.metrics.standby.inc({ platform: ws.platform });
  }

  failOpenPass(ws: WorkspaceRef): void {
    this.metrics.failOpen.inc({ platform: ws.platform });
  }

  acked(platform: Platform, status: number, latencyMs: number): void {
    this.metrics.ackLatency.observe({ platform, status: String(status) }, latencyMs / 1000);
  }

  replyDuplicate(ws: WorkspaceRef): void {
    this.metrics.duplicates.inc({ platform: ws.platform, layer: "reply" });
    this.count(ws, "duplicateReplies");
  }

  replySent(ws: WorkspaceRef, eventToReplyMs: number): void {
    this.metrics.replies.inc({ platform: ws.platform });
    this.metrics.eventToReply.observe({ platform: ws.platform }, eventToReplyMs / 1000);
    this.count(ws, "replies", 1, { lastReplyAt: Date.now() });
  }

  outcomeUnknown(ws: WorkspaceRef): void {
    this.metrics.outcomeUnknown.inc({ platform: ws.platform });
  }

  failure(ws: WorkspaceRef, stage: FailureStage, reason: string): void {
    this.metrics.failures.inc({ platform: ws.platform, stage });
    this.count(ws, "failures", 1, { lastError: { at: Date.now(), stage, message: reason } });
  }

  llmUsed(ws: WorkspaceRef, tokens: number, latencyMs: number): void {
    this.metrics.llmTokens.inc({ platform: ws.platform }, tokens);
    this.metrics.llmLatency.observe({ platform: ws.platform }, latencyMs / 1000);
    this.count(ws, "llmTokens", tokens);
  }

  toolCalled(ws: WorkspaceRef, report: ToolCallReport): void {
    const { outcome, replayed } = report;
    this.metrics.toolCalls.inc({ platform: ws.platform, outcome, replayed: String(replayed) });
    if (!replayed) this.count(ws, "toolCalls");
  }

  budgetExceeded(ws: WorkspaceRef, limit: BudgetLimit): void {
    this.metrics.overBudget.inc({ platform: ws.platform, limit });
    this.count(ws, "overBudget");
  }

  /** Writes the counts gathered so far; on failure they are kept for the next flush. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const at = Date.now();
    const increments = [...batch.values()].map(({ ws, counts, activity }) => ({
      tenantId: ws.tenantId,
      workspaceId: ws.workspaceId,
      counts,
      activity,
      at,
    }));
    try {
      await this.stats.add(increments);
    } catch (err) {
      warnUnlessAway(this.logger, err, {}, "could not write stats; keeping them for the next flush");
      for (const { ws, counts, activity } of batch.values()) {
        for (const [counter, by] of Object.entries(counts)) this.count(ws, counter as keyof StatCounts, by, activity);
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private count(ws: WorkspaceRef, counter: keyof StatCounts, by = 1, activity?: WorkspaceActivity): void {
    const key = `${ws.tenantId}/${ws.workspaceId}`;
    const entry = this.pending.get(key) ?? { ws, counts: {}, activity: {} };
    entry.counts[counter] = (entry.counts[counter] ?? 0) + by;
    entry.activity = latestActivity(entry.activity, activity);
    this.pending.set(key, entry);
  }
}
