import {
  type ClaimResult,
  type ClaimStore,
  CorruptRecordError,
  type HeldClaim,
  type JournalEntry,
} from "@resident/core";
import { decodeClaim, done, heldBy, inProgress, newToken } from "./claim-record.ts";
import { defineClaimScripts } from "./claim-scripts.ts";
import type { RedisClient } from "./connection.ts";
import { RedisPort, type RedisStoreOptions } from "./store-call.ts";

/**
 * Claims on Redis (standalone or Cluster), with the memory claim store's semantics. Each claim is one key (core's
 * logical key under the prefix), so claims spread over a cluster's slots. Every method rejects with
 * StoreUnavailableError when Redis cannot be reached; give it a fail-fast connection.
 */
export class RedisClaimStore extends RedisPort implements ClaimStore {
  constructor(client: RedisClient, options: RedisStoreOptions = {}) {
    super(client, options.health, options.prefix);
    defineClaimScripts(client);
  }

  /**
   * One round trip: SET NX with GET hands a duplicate the record it lost to. The journals to read go out behind it
   * (sent right after it, so one round trip; on a cluster they may live on other nodes, so it is not one script or MGET).
   */
  claim(key: string, owner: string, leaseMs: number, readJournals?: readonly string[]): Promise<ClaimResult> {
    const token = newToken();
    return this.call("claim", async () => {
      const [existing, ...stored] = await Promise.all([
        this.client.set(this.prefix + key, inProgress(token, owner), "PX", leaseMs, "NX", "GET"),
        ...(readJournals ?? []).map((journal) => this.client.get(this.prefix + journal)),
      ]);
      if (existing !== null) return { claimed: false, record: decodeClaim(existing) };
      if (readJournals === undefined) return { claimed: true, token };
      const journaled: Record<string, string> = {};
      for (const [i, journal] of readJournals.entries()) {
        const value = stored[i];
        if (value != null) journaled[journal] = journaledValue(journal, value);
      }
      return { claimed: true, token, journaled };
    });
  }

  extend(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.call(
      "extend",
      async () => (await this.client.rsdExtendClaim(this.prefix + key, heldBy(token), leaseMs)) === 1,
    );
  }

  commit(key: string, token: string, value: string, ttlMs: number, release?: HeldClaim): Promise<boolean> {
    return this.call("commit", async () => {
      const committed = (await this.client.rsdCommitClaim(this.prefix + key, heldBy(token), done(value), ttlMs)) === 1;
      if (committed && release) await this.client.rsdReleaseClaim(this.prefix + release.key, heldBy(release.token));
      return committed;
    });
  }

  /** One plain command: SET XX. */
  settle(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.call(
      "settle",
      async () => (await this.client.set(this.prefix + key, done(value), "PX", ttlMs, "XX")) === "OK",
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

  /** The two SET NX GET go out back to back, one round trip (on a cluster they may be on two nodes). */
  async journalAndClaim(entry: JournalEntry, key: string, owner: string, leaseMs: number) {
    const [journaled, claim] = await Promise.all([
      this.journal(entry.key, entry.value, entry.ttlMs),
      this.claim(key, owner, leaseMs),
    ]);
    return { journaled, claim };
  }

  /** For /readyz. */
  ping(): Promise<void> {
    return this.call("ping", async () => {
      await this.client.ping();
    });
  }
}

function journaledValue(key: string, stored: string): string {
  const record = decodeClaim(stored);
  if (record.state !== "done") throw new CorruptRecordError(`${key} is claimed, not journaled`);
  return record.value;
}
