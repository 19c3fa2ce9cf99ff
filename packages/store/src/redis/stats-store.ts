import {
  emptyCounts,
  type FailureStage,
  type StatCounter,
  type StatCounts,
  type StatIncrement,
  type StatPoint,
  type StatRange,
  type StatsStore,
  statCounters,
  statRanges,
  type WorkspaceActivity,
} from "@resident/core";
import type { ChainableCommander } from "ioredis";
import { bucketStart, seriesBuckets, seriesResolutions } from "../stats-series.ts";
import type { RedisClient } from "./connection.ts";
import { execAll } from "./exec-all.ts";
import { RedisPort, type RedisStoreOptions } from "./store-call.ts";

export interface RedisStatsStoreOptions extends RedisStoreOptions {
  /** How long a workspace's counters and activity are kept after its last increment. Default 90 days. */
  statsTtlMs?: number;
}

/**
 * Cluster-wide stats on Redis. A tenant's keys share the hash tag `{<tenantId>}`, so one tenant's batch is one
 * MULTI and each read one pipeline.
 */
export class RedisStatsStore extends RedisPort implements StatsStore {
  private readonly statsTtlMs: number;

  constructor(client: RedisClient, options: RedisStatsStoreOptions = {}) {
    super(client, options.health, options.prefix);
    this.statsTtlMs = options.statsTtlMs ?? 90 * 86_400_000;
  }

  add(increments: StatIncrement[]): Promise<void> {
    return this.call("stats add", async () => {
      const now = Date.now();
      const batches = new Map<string, ChainableCommander>();
      for (const { tenantId, workspaceId, counts, activity, at = now } of increments) {
        const batch = batches.get(tenantId) ?? this.client.multi();
        batches.set(tenantId, batch);
        const counted = (Object.entries(counts) as [StatCounter, number | undefined][]).filter(([, by]) => by);
        const totals = this.statsKey(tenantId, workspaceId);
        for (const [counter, by] of counted) batch.hincrby(totals, counter, by as number);
        batch.pexpire(totals, this.statsTtlMs).zadd(this.statsIndex(tenantId), now, workspaceId);
        for (const range of statRanges) {
          const start = bucketStart(at, range);
          // Nothing of a workspace outlives its counters.
          const expiresAt = Math.min(start + seriesResolutions[range].keepMs, now + this.statsTtlMs);
          if (counted.length === 0 || expiresAt <= now) continue;
          const bucket = this.bucketKey(tenantId, workspaceId, range, start);
          for (const [counter, by] of counted) batch.hincrby(bucket, counter, by as number);
          batch.pexpireat(bucket, expiresAt);
        }
        if (activity) this.recordActivity(batch, tenantId, workspaceId, activity);
      }
      // The index of a tenant's workspaces drops those whose counters have expired, so it stays bounded too.
      for (const [tenantId, batch] of batches) {
        const index = this.statsIndex(tenantId);
        batch.zremrangebyscore(index, "-inf", now - this.statsTtlMs).pexpire(index, this.statsTtlMs);
      }
      await Promise.all([...batches.values()].map(execAll));
    });
  }

  read(tenantId: string): Promise<Record<string, StatCounts>> {
    return this.call("stats read", async () => {
      const workspaceIds = await this.workspaceIds(tenantId);
      if (workspaceIds.length === 0) return {};
      const batch = this.client.pipeline();
      for (const workspaceId of workspaceIds) batch.hgetall(this.statsKey(tenantId, workspaceId));
      const totals = (await execAll(batch)) as Record<string, string>[];
      return Object.fromEntries(workspaceIds.map((workspaceId, i) => [workspaceId, toCounts(totals[i] ?? {})]));
    });
  }

  activity(tenantId: string): Promise<Record<string, WorkspaceActivity>> {
    return this.call("stats activity", async () => {
      const workspaceIds = await this.workspaceIds(tenantId);
      if (workspaceIds.length === 0) return {};
      const batch = this.client.pipeline();
      for (const workspaceId of workspaceIds) {
        batch
          .zrange(this.activityKey(tenantId, workspaceId), "0", "-1", "WITHSCORES")
          .zrange(this.lastErrorKey(tenantId, workspaceId), "-1", "-1", "WITHSCORES");
      }
      const replies = (await execAll(batch)) as string[][];
      return Object.fromEntries(
        workspaceIds.map((workspaceId, i) => [workspaceId, toActivity(replies[2 * i] ?? [], replies[2 * i + 1] ?? [])]),
      );
    });
  }

  series(tenantId: string, workspaceId: string, range: StatRange): Promise<StatPoint[]> {
    return this.call("stats series", async () => {
      const starts = seriesBuckets(range, Date.now());
      const batch = this.client.pipeline();
      for (const start of starts) batch.hgetall(this.bucketKey(tenantId, workspaceId, range, start));
      const buckets = (await execAll(batch)) as Record<string, string>[];
      return starts.map((at, i) => ({ at, counts: toCounts(buckets[i] ?? {}) }));
    });
  }

  /** Moments only move forward (ZADD GT); the last error is the newest member of its set, the only one kept. */
  private recordActivity(
    batch: ChainableCommander,
    tenantId: string,
    workspaceId: string,
    { lastEventAt, lastReplyAt, lastError }: WorkspaceActivity,
  ): void {
    const moments = [
      [lastEventAt, "event"],
      [lastReplyAt, "reply"],
    ].filter(([at]) => at !== undefined) as [number, string][];
    if (moments.length > 0) {
      const key = this.activityKey(tenantId, workspaceId);
      batch.zadd(key, "GT", ...moments.flat()).pexpire(key, this.statsTtlMs);
    }
    if (lastError) {
      const key = this.lastErrorKey(tenantId, workspaceId);
      const member = JSON.stringify({ stage: lastError.stage, message: lastError.message });
      batch.zadd(key, lastError.at, member).zremrangebyrank(key, 0, -2).pexpire(key, this.statsTtlMs);
    }
  }

  private workspaceIds(tenantId: string): Promise<string[]> {
    return this.client.zrangebyscore(this.statsIndex(tenantId), Date.now() - this.statsTtlMs, "+inf");
  }

  private statsIndex(tenantId: string): string {
    return `${this.prefix}stats:{${tenantId}}:workspaces`;
  }

  private statsKey(tenantId: string, workspaceId: string): string {
    return `${this.prefix}stats:{${tenantId}}:ws:${workspaceId}`;
  }

  private activityKey(tenantId: string, workspaceId: string): string {
    return `${this.statsKey(tenantId, workspaceId)}:activity`;
  }

  private lastErrorKey(tenantId: string, workspaceId: string): string {
    return `${this.statsKey(tenantId, workspaceId)}:error`;
  }

  private bucketKey(tenantId: string, workspaceId: string, range: StatRange, start: number): string {
    return `${this.statsKey(tenantId, workspaceId)}:${bucketNames[range]}:${start}`;
  }
}

/** A range's buckets are named by their width. */
const bucketNames: Record<StatRange, string> = { hour: "minute", day: "hour" };

function toCounts(stored: Record<string, string>): StatCounts {
  const counts = emptyCounts();
  for (const counter of statCounters) counts[counter] = Number(stored[counter] ?? 0);
  return counts;
}

/** From `ZRANGE … WITHSCORES` replies: [member, score, …] of the moments, and [member, score] of the last error. */
function toActivity(moments: string[], lastError: string[]): WorkspaceActivity {
  const activity: WorkspaceActivity = {};
  for (let i = 0; i + 1 < moments.length; i += 2) {
    const at = Number(moments[i + 1]);
    if (moments[i] === "event") activity.lastEventAt = at;
    if (moments[i] === "reply") activity.lastReplyAt = at;
  }
  const [member, score] = lastError;
  if (member !== undefined && score !== undefined) {
    const { stage, message } = JSON.parse(member) as { stage: FailureStage; message: string };
    activity.lastError = { at: Number(score), stage, message };
  }
  return activity;
}
