import { randomUUID } from "node:crypto";
import {
  type ClaimRecord,
  type ClaimResult,
  type ClaimStore,
  type ConversationMemory,
  emptyCounts,
  type StatCounts,
  type StatIncrement,
  type StatsStore,
  type Turn,
} from "@resident/core";
import { ExpiringMap } from "./expiring-map.ts";

type Held = { record: ClaimRecord; token?: string };

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
  private readonly stats = new Map<string, Map<string, StatCounts>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: MemoryStoreOptions = {}) {
    const now = options.now ?? Date.now;
    this.claims = new ExpiringMap(now, options.maxClaims);
    this.threads = new ExpiringMap(now);
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
    for (const { tenantId, workspaceId, counts } of increments) {
      const tenant = this.stats.get(tenantId) ?? new Map<string, StatCounts>();
      this.stats.set(tenantId, tenant);
      const totals = tenant.get(workspaceId) ?? emptyCounts();
      tenant.set(workspaceId, totals);
      for (const [counter, by] of Object.entries(counts) as [keyof StatCounts, number][]) totals[counter] += by;
    }
  }

  async read(tenantId: string): Promise<Record<string, StatCounts>> {
    const tenant = this.stats.get(tenantId) ?? new Map<string, StatCounts>();
    return Object.fromEntries([...tenant].map(([workspaceId, counts]) => [workspaceId, { ...counts }]));
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
