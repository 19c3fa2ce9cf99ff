import { randomUUID } from "node:crypto";
import { CorruptRecordError } from "../errors.ts";
import type { ClaimRecord, ClaimResult, ClaimStore, HeldClaim, JournalEntry } from "../ports/claim-store.ts";
import { expiringCache } from "./expiring-cache.ts";

type Held = { record: ClaimRecord; token?: string };

export interface MemoryClaimStoreOptions {
  now?: () => number;
  /** Bound on the number of keys kept (the least recently written dropped first). Unbounded by default. */
  maxClaims?: number;
}

/**
 * Claims in one process: the fail-open lane's local dedupe, and `npm start` without REDIS_URL. Same semantics as
 * the Redis and PostgreSQL claim stores (atomic claim, TTL expiry, token-checked commit/release/extend); it is
 * simply not shared between processes.
 */
export class MemoryClaimStore implements ClaimStore {
  private readonly claims;

  constructor(options: MemoryClaimStoreOptions = {}) {
    this.claims = expiringCache<Held>(options.now ?? Date.now, options.maxClaims);
  }

  async claim(key: string, owner: string, leaseMs: number, readJournals?: readonly string[]): Promise<ClaimResult> {
    const held = this.claims.peek(key);
    if (held) return { claimed: false, record: held.record };
    const token = randomUUID();
    this.claims.set(key, { record: { state: "in_progress", owner }, token }, { ttl: leaseMs });
    if (readJournals === undefined) return { claimed: true, token };
    const journaled: Record<string, string> = {};
    for (const journal of readJournals) {
      const value = await this.journaled(journal);
      if (value !== undefined) journaled[journal] = value;
    }
    return { claimed: true, token, journaled };
  }

  async extend(key: string, token: string, leaseMs: number): Promise<boolean> {
    const held = this.held(key, token);
    if (held) this.claims.set(key, held, { ttl: leaseMs });
    return held !== undefined;
  }

  async commit(key: string, token: string, value: string, ttlMs: number, release?: HeldClaim): Promise<boolean> {
    if (!this.held(key, token)) return false;
    this.claims.set(key, { record: { state: "done", value } }, { ttl: ttlMs });
    if (release) await this.release(release.key, release.token);
    return true;
  }

  async settle(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (!this.claims.peek(key)) return false;
    this.claims.set(key, { record: { state: "done", value } }, { ttl: ttlMs });
    return true;
  }

  async release(key: string, token: string): Promise<boolean> {
    if (!this.held(key, token)) return false;
    this.claims.delete(key);
    return true;
  }

  async journal(key: string, value: string, ttlMs: number): Promise<string> {
    const standing = this.keepIfAbsent(key, value, ttlMs);
    if (standing?.state === "in_progress") throw new CorruptRecordError(`${key} is claimed, not journaled`);
    return standing === undefined ? value : standing.value;
  }

  /**
   * Writes done{value} under an absent key, kept for `ttlMs`; returns the record standing there instead, if any.
   * Synchronous, so that a caller can add a job in the same step (MemoryQueuedAdmission).
   */
  keepIfAbsent(key: string, value: string, ttlMs: number): ClaimRecord | undefined {
    const standing = this.claims.peek(key)?.record;
    if (!standing) this.claims.set(key, { record: { state: "done", value } }, { ttl: ttlMs });
    return standing;
  }

  async journaled(key: string): Promise<string | undefined> {
    const standing = this.claims.peek(key)?.record;
    return standing?.state === "done" ? standing.value : undefined;
  }

  async journalAndClaim(entry: JournalEntry, key: string, owner: string, leaseMs: number) {
    const journaled = await this.journal(entry.key, entry.value, entry.ttlMs);
    return { journaled, claim: await this.claim(key, owner, leaseMs) };
  }

  private held(key: string, token: string): Held | undefined {
    const held = this.claims.peek(key);
    return held?.record.state === "in_progress" && held.token === token ? held : undefined;
  }
}
