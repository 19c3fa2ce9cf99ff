/**
 * The idempotency record kept under one key, and the only ways it changes:
 *
 *   (absent)    ── claim ───────────▶ in_progress{owner, token}   expires after the lease
 *   (absent)    ── journal(value) ──▶ done{value}                 written once: a later journal gets this value
 *   in_progress ── extend(token) ───▶ in_progress                 lease renewed while work runs
 *   in_progress ── commit(token) ───▶ done{value}                 kept for the long TTL
 *   present     ── settle ──────────▶ done{value}                 whoever holds it: the work is done whoever did it
 *   in_progress ── release(token) ──▶ (absent)                    a definite failure: let a retry run
 *   in_progress ── lease lapses ────▶ (absent)                    its owner died: the next claim wins
 *   done        ── TTL lapses ──────▶ (absent)
 *
 * A journal key is never claimed: it keeps what a claim's holder computed (the agent's answer) beside the claim, for
 * whoever holds the claim next — a retry after a failed send, or a takeover after its holder died.
 *
 * claim and journal are atomic (one SET NX); extend, commit and release are compare-and-set on the token, so a slow or
 * resurrected owner can never overwrite or delete a claim that has passed to someone else. settle is for work whose
 * outcome is the same whoever holds the key (a job queued under the key's own id): one plain write, no token to check.
 * Every method rejects with StoreUnavailableError when the store cannot be reached.
 */
export type ClaimRecord = { state: "in_progress"; owner: string } | { state: "done"; value: string };

export type ClaimResult =
  /** `journaled`: with `readJournals`, the values journaled under those keys, by key (a key with none is absent). */
  | { claimed: true; token: string; journaled?: Readonly<Record<string, string>> }
  | { claimed: false; record: ClaimRecord };

/** A claim held by `token`. */
export interface HeldClaim {
  key: string;
  token: string;
}

/** A value to journal under `key`, kept for `ttlMs` (ClaimStore.journal's arguments). */
export interface JournalEntry {
  key: string;
  value: string;
  ttlMs: number;
}

/*
 * The optional arguments fold the reply ledger's neighbouring steps into the claim's and the commit's round trip
 * (one statement each on PostgreSQL): the answer journaled beside a reply claim, the sending mark ended by the commit.
 */
export interface ClaimStore {
  /**
   * Takes the key if absent. `owner` names the holder (a job id, an instance) for whoever finds the claim. With
   * `readJournals`, a taken claim also carries the values journaled under those keys, read after it was taken.
   */
  claim(key: string, owner: string, leaseMs: number, readJournals?: readonly string[]): Promise<ClaimResult>;
  /** Renews the lease; false when the token no longer holds the key. */
  extend(key: string, token: string, leaseMs: number): Promise<boolean>;
  /**
   * Marks the work done with `value`, kept for `ttlMs`; false when the token no longer holds the key. With `release`,
   * that other claim is released too — only if this commit took.
   */
  commit(key: string, token: string, value: string, ttlMs: number, release?: HeldClaim): Promise<boolean>;
  /**
   * Marks the work done with `value`, kept for `ttlMs`, whoever holds the key now (a claim or a done record); false
   * when the key is absent, which it then stays.
   */
  settle(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Gives the key back; false when the token no longer holds it. */
  release(key: string, token: string): Promise<boolean>;
  /** Writes `value` under an absent key, kept for `ttlMs`; resolves to the value that stands there (the first). */
  journal(key: string, value: string, ttlMs: number): Promise<string>;
  /** The value journaled under `key`, or undefined. */
  journaled(key: string): Promise<string | undefined>;
  /**
   * `journal(entry…)` and `claim(key, owner, leaseMs)` in one step (one statement on PostgreSQL, one round trip on
   * Redis): the value that stands under the entry's key, and the claim's result. The reply ledger journals the answer
   * and takes the sending mark so.
   */
  journalAndClaim(
    entry: JournalEntry,
    key: string,
    owner: string,
    leaseMs: number,
  ): Promise<{ journaled: string; claim: ClaimResult }>;
}
