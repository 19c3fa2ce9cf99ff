import {
  type ClaimResult,
  type ClaimStore,
  type ConversationMemory,
  emptyCounts,
  type StatCounter,
  type StatCounts,
  type StatIncrement,
  type StatsStore,
  statCounters,
  type Turn,
} from "@resident/core";
import type { ChainableCommander } from "ioredis";
import { decodeClaim, done, heldBy, inProgress, newToken } from "./claim-record.ts";
import { defineClaimScripts } from "./claim-scripts.ts";
import type { RedisClient } from "./connection.ts";
import { storeCall } from "./store-call.ts";

export interface RedisStoreOptions {
  /** Prepended to every key. Default `rsd:`. */
  prefix?: string;
  /** How long a workspace's counters are kept after its last increment. Default 90 days. */
  statsTtlMs?: number;
}

/**
 * The shared-state ports on Redis (standalone or Cluster), with MemoryStore's semantics. Keys are core's logical
 * keys under the prefix; each claim and each thread is one key, so they spread over a cluster's slots. A tenant's
 * stats share the hash tag `{<tenantId>}`, so one tenant's batch is one MULTI and its read one pipeline.
 * Every method rejects with StoreUnavailableError when Redis cannot be reached; give it a fail-fast connection.
 */
export class RedisStore implements ClaimStore, ConversationMemory, StatsStore {
  private readonly prefix: string;
  private readonly statsTtlMs: number;

  constructor(
    private readonly client: RedisClient,
    options: RedisStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? "rsd:";
    this.statsTtlMs = options.statsTtlMs ?? 90 * 86_400_000;
    defineClaimScripts(client);
  }

  /** One round trip: SET NX with GET hands a duplicate the record it lost to. */
  claim(key: string, owner: string, leaseMs: number): Promise<ClaimResult> {
    const token = newToken();
    return storeCall("claim", async () => {
      const existing = await this.client.set(this.prefix + key, inProgress(token, owner), "PX", leaseMs, "NX", "GET");
      return existing === null ? { claimed: true, token } : { claimed: false, record: decodeClaim(existing) };
    });
  }

  extend(key: string, token: string, leaseMs: number): Promise<boolean> {
    return storeCall(
      "extend",
      async () => (await this.client.rsdExtendClaim(this.prefix + key, heldBy(token), leaseMs)) === 1,
    );
  }

  commit(key: string, token: string, value: string, ttlMs: number): Promise<boolean> {
    return storeCall(
      "commit",
      async () => (await this.client.rsdCommitClaim(this.prefix + key, heldBy(token), done(value), ttlMs)) === 1,
    );
  }

  release(key: string, token: string): Promise<boolean> {
    return storeCall(
      "release",
      async () => (await this.client.rsdReleaseClaim(this.prefix + key, heldBy(token))) === 1,
    );
  }

  recent(conversationKey: string, limit: number): Promise<Turn[]> {
    return storeCall("recent", async () => {
      const turns = await this.client.lrange(this.prefix + conversationKey, -limit, -1);
      return turns.map((turn) => JSON.parse(turn) as Turn);
    });
  }

  append(conversationKey: string, turns: Turn[], keep: number, ttlMs: number): Promise<void> {
    const key = this.prefix + conversationKey;
    return storeCall("append", async () => {
      const batch = this.client.multi();
      if (turns.length > 0)
        batch.rpush(key, ...turns.map((turn) => JSON.stringify({ role: turn.role, text: turn.text })));
      await execAll(batch.ltrim(key, -keep, -1).pexpire(key, ttlMs));
    });
  }

  add(increments: StatIncrement[]): Promise<void> {
    return storeCall("stats add", async () => {
      const now = Date.now();
      const batches = new Map<string, ChainableCommander>();
      for (const { tenantId, workspaceId, counts } of increments) {
        const batch = batches.get(tenantId) ?? this.client.multi();
        batches.set(tenantId, batch);
        const totals = this.statsKey(tenantId, workspaceId);
        for (const [counter, by] of Object.entries(counts) as [StatCounter, number | undefined][]) {
          if (by) batch.hincrby(totals, counter, by);
        }
        batch.pexpire(totals, this.statsTtlMs).zadd(this.statsIndex(tenantId), now, workspaceId);
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
    return storeCall("stats read", async () => {
      const workspaceIds = await this.client.zrangebyscore(
        this.statsIndex(tenantId),
        Date.now() - this.statsTtlMs,
        "+inf",
      );
      if (workspaceIds.length === 0) return {};
      const batch = this.client.pipeline();
      for (const workspaceId of workspaceIds) batch.hgetall(this.statsKey(tenantId, workspaceId));
      const totals = (await execAll(batch)) as Record<string, string>[];
      return Object.fromEntries(workspaceIds.map((workspaceId, i) => [workspaceId, toCounts(totals[i] ?? {})]));
    });
  }

  /** For /readyz. */
  ping(): Promise<void> {
    return storeCall("ping", async () => {
      await this.client.ping();
    });
  }

  private statsIndex(tenantId: string): string {
    return `${this.prefix}stats:{${tenantId}}:workspaces`;
  }

  private statsKey(tenantId: string, workspaceId: string): string {
    return `${this.prefix}stats:{${tenantId}}:ws:${workspaceId}`;
  }
}

function toCounts(stored: Record<string, string>): StatCounts {
  const counts = emptyCounts();
  for (const counter of statCounters) counts[counter] = Number(stored[counter] ?? 0);
  return counts;
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
