import { randomUUID } from "node:crypto";
import {
  addCounts,
  bucketStart,
  type ClaimRecord,
  type ClaimResult,
  type ClaimStore,
  type ConversationMemory,
  CorruptRecordError,
  emptyCounts,
  latestActivity,
  type StatCounts,
  type StatIncrement,
  type StatPoint,
  type StatRange,
  type StatsStore,
  seriesBuckets,
  seriesResolutions,
  statRanges,
  type Turn,
  type WorkspaceActivity,
} from "@resident/core";
import { ExpiringMap } from "./expiring-map.ts";

type Held = { record: ClaimRecord; token?: string };

/** One workspace's stats: totals, latest activity, and the counts per bucket of each range's series. */
interface WorkspaceStats {
  totals: StatCounts;
  activity: WorkspaceActivity;
  buckets: Record<StatRange, Map<number, StatCounts>>;
}

export interface MemoryStoreOptions {
  now?: () => number;
  /** Bound on the number of claim keys kept (oldest dropped first). Unbounded by default. */
  maxClaims?: number;
}

/**
 * The shared-state ports in one process: what `npm start` uses without REDIS_URL, and the fail-open lane's local
 * store. Same semantics as the Redis store (atomic claim, TTL expiry, owner-checked commit/release/extend); it is
 * simply not shared between processes.
 */
export class MemoryStore implements ClaimStore, ConversationMemory, StatsStore {
  private readonly claims: ExpiringMap<Held>;
  private readonly threads: ExpiringMap<Turn[]>;
  private readonly stats = new Map<string, Map<string, WorkspaceStats>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(options: MemoryStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.claims = new ExpiringMap(this.now, options.maxClaims);
    this.threads = new ExpiringMap(this.now);
    this.sweeper = setInterval(() => {
      this.claims.sweep();
      this.threads.sweep();
    }, 60_000);
    this.sweeper.unref();
  }

  async claim(key: string, owner: string, leaseMs: number): Promise<ClaimResult> {
    const held = this.claims.get(key);
    if (held) return { claimed: false, record: held.record };
    const token = randomUUID();
    this.claims.set(key, { record: { state: "in_progress", owner }, token }, leaseMs);
    return { claimed: true, token };
  }

  async extend(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.holds(key, token) && this.claims.expire(key, leaseMs);
  }

  async commit(key: string, token: string, value: string, ttlMs: number): Promise<boolean> {
    if (!this.holds(key, token)) return false;
    this.claims.set(key, { record: { state: "done", value } }, ttlMs);
    return true;
  }

  async release(key: string, token: string): Promise<boolean> {
    if (!this.holds(key, token)) return false;
    this.claims.delete(key);
    return true;
  }

  async journal(key: string, value: string, ttlMs: number): Promise<string> {
    const standing = this.claims.get(key)?.record;
    if (standing?.state === "done") return standing.value;
    if (standing) throw new CorruptRecordError(`${key} is claimed, not journaled`);
    this.claims.set(key, { record: { state: "done", value } }, ttlMs);
    return value;
  }

  async journaled(key: string): Promise<string | undefined> {
    const standing = this.claims.get(key)?.record;
    return standing?.state === "done" ? standing.value : undefined;
  }

  private holds(key: string, token: string): boolean {
    const held = this.claims.get(key);
    return held?.record.state === "in_progress" && held.token === token;
  }

  async recent(conversationKey: string, limit: number): Promise<Turn[]> {
    return (this.threads.get(conversationKey) ?? []).slice(-limit);
  }

  async append(conversationKey: string, turns: Turn[], keep: number, ttlMs: number): Promise<void> {
    const kept = [...(this.threads.get(conversationKey) ?? []), ...turns].slice(-keep);
    this.threads.set(conversationKey, kept, ttlMs);
  }

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

  close(): void {
    clearInterval(this.sweeper);
  }
}
