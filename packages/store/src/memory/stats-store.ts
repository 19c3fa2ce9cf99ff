import {
  emptyCounts,
  type StatCounts,
  type StatIncrement,
  type StatPoint,
  type StatRange,
  type StatsStore,
  statRanges,
  type WorkspaceActivity,
} from "@resident/core";
import { addCounts, bucketStart, latestActivity, seriesBuckets, seriesResolutions } from "../stats-series.ts";

/** One workspace's stats: totals, latest activity, and the counts per bucket of each range's series. */
interface WorkspaceStats {
  totals: StatCounts;
  activity: WorkspaceActivity;
  buckets: Record<StatRange, Map<number, StatCounts>>;
}

/** Stats in one process (`npm start` without REDIS_URL), with the Redis stats store's semantics. */
export class MemoryStatsStore implements StatsStore {
  private readonly stats = new Map<string, Map<string, WorkspaceStats>>();

  constructor(private readonly now: () => number = Date.now) {}

  async add(increments: StatIncrement[]): Promise<void> {
    const now = this.now();
    for (const { tenantId, workspaceId, counts, activity, at = now } of increments) {
      const stats = this.workspaceStats(tenantId, workspaceId);
      addCounts(stats.totals, counts);
      stats.activity = latestActivity(stats.activity, activity);
      for (const range of statRanges) {
        const { keepMs } = seriesResolutions[range];
        const buckets = stats.buckets[range];
        const start = bucketStart(at, range);
        if (start > now - keepMs) {
          const bucket = buckets.get(start) ?? emptyCounts();
          buckets.set(start, bucket);
          addCounts(bucket, counts);
        }
        // Buckets are mostly created in time order, so the lapsed ones come first.
        for (const kept of buckets.keys()) {
          if (kept > now - keepMs) break;
          buckets.delete(kept);
        }
      }
    }
  }

  async read(tenantId: string): Promise<Record<string, StatCounts>> {
    return this.perWorkspace(tenantId, (stats) => ({ ...stats.totals }));
  }

  async activity(tenantId: string): Promise<Record<string, WorkspaceActivity>> {
    return this.perWorkspace(tenantId, (stats) => ({ ...stats.activity }));
  }

  async series(tenantId: string, workspaceId: string, range: StatRange): Promise<StatPoint[]> {
    const buckets = this.stats.get(tenantId)?.get(workspaceId)?.buckets[range];
    return seriesBuckets(range, this.now()).map((at) => ({ at, counts: { ...(buckets?.get(at) ?? emptyCounts()) } }));
  }

  private workspaceStats(tenantId: string, workspaceId: string): WorkspaceStats {
    const tenant = this.stats.get(tenantId) ?? new Map<string, WorkspaceStats>();
    this.stats.set(tenantId, tenant);
    const stats = tenant.get(workspaceId) ?? {
      totals: emptyCounts(),
      activity: {},
      buckets: { hour: new Map(), day: new Map() },
    };
    tenant.set(workspaceId, stats);
    return stats;
  }

  private perWorkspace<T>(tenantId: string, view: (stats: WorkspaceStats) => T): Record<string, T> {
    const tenant = this.stats.get(tenantId) ?? new Map<string, WorkspaceStats>();
    return Object.fromEntries([...tenant].map(([workspaceId, stats]) => [workspaceId, view(stats)]));
  }
}
