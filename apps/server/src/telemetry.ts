import type {
  BudgetLimit,
  FailureRecord,
  FailureStage,
  Logger,
  Platform,
  StatCounts,
  StatIncrement,
  StatsStore,
  Telemetry,
  ToolCallReport,
  WorkspaceRef,
} from "@resident/core";
import { emptyCounts, statCounters, warnUnlessAway } from "@resident/core";
import { addCounts, latestActivity } from "@resident/store";
import type { Metrics } from "./metrics.ts";

/**
 * What one workspace counted since the last flush. Every workspace's has the same fields from the start, updated in
 * place: the ack counts each delivery here, and objects grown key by key (a shape for each order the counters came
 * in) and copied on each count cost it more than the count.
 */
class PendingStats {
  readonly counts: StatCounts = emptyCounts();
  lastEventAt = 0;
  lastReplyAt = 0;
  lastError: FailureRecord | undefined = undefined;

  constructor(readonly ws: WorkspaceRef) {}

  failed(error: FailureRecord): void {
    if (!this.lastError || error.at > this.lastError.at) this.lastError = error;
  }

  /** Takes in another's counts and keeps the later of each moment. */
  add(other: PendingStats): void {
    addCounts(this.counts, other.counts);
    this.lastEventAt = Math.max(this.lastEventAt, other.lastEventAt);
    this.lastReplyAt = Math.max(this.lastReplyAt, other.lastReplyAt);
    if (other.lastError) this.failed(other.lastError);
  }

  /** The store's increment: only the counters that moved, only the moments that were seen. */
  increment(at: number): StatIncrement {
    const counts: Partial<StatCounts> = {};
    for (const counter of statCounters) if (this.counts[counter]) counts[counter] = this.counts[counter];
    const { lastEventAt, lastReplyAt, lastError } = this;
    const activity = latestActivity({ lastEventAt, lastReplyAt, lastError });
    return { tenantId: this.ws.tenantId, workspaceId: this.ws.workspaceId, counts, activity, at };
  }
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
    this.metrics.deliveries.inc(ws.platform);
    const stats = this.of(ws);
    stats.counts.events++;
    stats.lastEventAt = Math.max(stats.lastEventAt, Date.now());
  }

  platformRetry(platform: Platform, reason: string): void {
    this.metrics.platformRetries.inc({ platform, reason });
  }

  eventDuplicate(ws: WorkspaceRef): void {
    this.metrics.duplicates.inc({ platform: ws.platform, layer: "event" });
    this.of(ws).counts.duplicateEvents++;
  }

  standbyPass(ws: WorkspaceRef): void {
    this.metrics.standby.inc({ platform: ws.platform });
  }

  failOpenPass(ws: WorkspaceRef): void {
    this.metrics.failOpen.inc({ platform: ws.platform });
  }

  acked(platform: Platform, status: number, latencyMs: number): void {
    this.metrics.ackLatency.series(platform, String(status)).observe(latencyMs / 1000);
  }

  replyDuplicate(ws: WorkspaceRef): void {
    this.metrics.duplicates.inc({ platform: ws.platform, layer: "reply" });
    this.of(ws).counts.duplicateReplies++;
  }

  replySent(ws: WorkspaceRef, eventToReplyMs: number): void {
    this.metrics.replies.inc({ platform: ws.platform });
    this.metrics.eventToReply.observe({ platform: ws.platform }, eventToReplyMs / 1000);
    const stats = this.of(ws);
    stats.counts.replies++;
    stats.lastReplyAt = Math.max(stats.lastReplyAt, Date.now());
  }

  outcomeUnknown(ws: WorkspaceRef): void {
    this.metrics.outcomeUnknown.inc({ platform: ws.platform });
  }

  failure(ws: WorkspaceRef, stage: FailureStage, reason: string): void {
    this.metrics.failures.inc({ platform: ws.platform, stage });
    const stats = this.of(ws);
    stats.counts.failures++;
    stats.failed({ at: Date.now(), stage, message: reason });
  }

  llmUsed(ws: WorkspaceRef, tokens: number, latencyMs: number): void {
    this.metrics.llmTokens.inc({ platform: ws.platform }, tokens);
    this.metrics.llmLatency.observe({ platform: ws.platform }, latencyMs / 1000);
    this.of(ws).counts.llmTokens += tokens;
  }

  toolCalled(ws: WorkspaceRef, report: ToolCallReport): void {
    const { outcome, replayed } = report;
    this.metrics.toolCalls.inc({ platform: ws.platform, outcome, replayed: String(replayed) });
    if (!replayed) this.of(ws).counts.toolCalls++;
  }

  budgetExceeded(ws: WorkspaceRef, limit: BudgetLimit): void {
    this.metrics.overBudget.inc({ platform: ws.platform, limit });
    this.of(ws).counts.overBudget++;
  }

  /** Writes the counts gathered so far; on failure they are kept for the next flush. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const at = Date.now();
    try {
      await this.stats.add([...batch.values()].map((stats) => stats.increment(at)));
    } catch (err) {
      warnUnlessAway(this.logger, err, {}, "could not write stats; keeping them for the next flush");
      for (const stats of batch.values()) this.of(stats.ws).add(stats);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** This workspace's counts since the last flush; workspace ids are unique across tenants. */
  private of(ws: WorkspaceRef): PendingStats {
    let stats = this.pending.get(ws.workspaceId);
    if (!stats) {
      stats = new PendingStats(ws);
      this.pending.set(ws.workspaceId, stats);
    }
    return stats;
  }
}
