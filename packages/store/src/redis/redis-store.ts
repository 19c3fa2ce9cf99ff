import {
  bucketStart,
  type ClaimResult,
  type ClaimStore,
  type ConversationMemory,
  CorruptRecordError,
  emptyCounts,
  type FailureStage,
  type StatCounter,
  type StatCounts,
  type StatIncrement,
  type StatPoint,
  type StatRange,
  type StatsStore,
  seriesBuckets,
  seriesResolutions,
  statCounters,
  statRanges,
  type Turn,
  type WorkspaceActivity,
} from "@resident/core";
import type { ChainableCommander } from "ioredis";
import { decodeClaim, done, heldBy, inProgress, newToken } from "./claim-record.ts";
import { defineClaimScripts } from "./claim-scripts.ts";
import type { RedisClient } from "./connection.ts";
import type { RedisHealth } from "./redis-health.ts";
import { storeCall } from "./store-call.ts";

export interface RedisStoreOptions {
  /** Prepended to every key. Default `rsd:`. */
  prefix?: string;
  /** How long a workspace's counters and activity are kept after its last increment. Default 90 days. */
  statsTtlMs?: number;
  /** The breaker that tells whether Redis is up; while it says down, every method rejects at once. */
  health?: RedisHealth;
}

/**
 * The shared-state ports on Redis (standalone or Cluster), with MemoryStore's semantics. Keys are core's logical
 * keys under the prefix; each claim and each thread is one key, so they spread over a cluster's slots. A tenant's
 * stats share the hash tag `{<tenantId>}`, so one tenant's batch is one MULTI and each read one pipeline.
 * Every method rejects with StoreUnavailableError when Redis cannot be reached; give it a fail-fast connection.
 */
export class RedisStore implements ClaimStore, ConversationMemory, StatsStore {
  private readonly prefix: string;
  private readonly statsTtlMs: number;

  constructor(
    private readonly client: RedisClient,
    private readonly options: RedisStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? "rsd:";
    this.statsTtlMs = options.statsTtlMs ?? 90 * 86_400_000;
    defineClaimScripts(client);
  }

  private call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return storeCall(operation, run, this.options.health);
  }

  /** One round trip: SET NX with GET hands a duplicate the record it lost to. */
  claim(key: string, owner: string, leaseMs: number): Promise<ClaimResult> {
    const token = newToken();
    return this.call("claim", async () => {
      const existing = await this.client.set(this.prefix + key, inProgress(token, owner), "PX", leaseMs, "NX", "GET");
      return existing === null ? { claimed: true, token } : { claimed: false, record: decodeClaim(existing) };
    });
  }

  extend(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.call(
      "extend",
      async () => (await this.client.rsdExtendClaim(this.prefix + key, heldBy(token), leaseMs)) === 1,
    );
  }

  commit(key: string, token: string, value: string, ttlMs: number): Promise<boolean> {
    return this.call(
      "commit",
      async () => (await this.client.rsdCommitClaim(this.prefix + key, heldBy(token), done(value), ttlMs)) === 1,
    );
  }

  release(key: string, token: string): Promise<boolean> {
    return this.call(
      "release",
      async () => (await this.client.rsdReleaseClaim(this.prefix + key, heldBy(token))) === 1,
    );
  }

  /** One round trip, like a claim: SET NX with GET hands a later journal the value that stands. */
  journal(key: string, value: string, ttlMs: number): Promise<string> {
    return this.call("journal", async () => {
      const existing = await this.client.set(this.prefix + key, done(value), "PX", ttlMs, "NX", "GET");
      return existing === null ? value : journaledValue(key, existing);
    });
  }

  journaled(key: string): Promise<string | undefined> {
    return this.call("journaled", async () => {
      const existing = await this.client.get(this.prefix + key);
      return existing === null ? undefined : journaledValue(key, existing);
    });
  }

  recent(conversationKey: string, limit: number): Promise<Turn[]> {
    return this.call("recent", async () => {
      const turns = await this.client.lrange(this.prefix + conversationKey, -limit, -1);
      return turns.map((turn) => JSON.parse(turn) as Turn);
    });
  }

  append(conversationKey: string, turns: Turn[], keep: number, ttlMs: number): Promise<void> {
    const key = this.prefix + conversationKey;
    return this.call("append", async () => {
      const batch = this.client.multi();
      if (turns.length > 0)
        batch.rpush(key, ...turns.map((turn) => JSON.stringify({ role: turn.role, text: turn.text })));
      await execAll(batch.ltrim(key, -keep, -1).pexpire(key, ttlMs));
    });
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

  /** For /readyz. */
  ping(): Promise<void> {
    return this.call("ping", async () => {
      await this.client.ping();
    });
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

/** Runs a MULTI or pipeline and rejects with the first command's error, which ioredis hands back in the replies. */
async function execAll(batch: ChainableCommander): Promise<unknown[]> {
  const replies = await batch.exec();
  if (!replies) throw new Error("transaction aborted");
  return replies.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

function journaledValue(key: string, stored: string): string {
  const record = decodeClaim(stored);
  if (record.state !== "done") throw new CorruptRecordError(`${key} is claimed, not journaled`);
  return record.value;
}
