/**
 * The idempotency record kept under one key, and the only ways it changes:
 *
 *   (absent)    ── claim ───────────▶ in_progress{owner, token}   expires after the lease
 *   in_progress ── extend(token) ───▶ in_progress                 lease renewed while work runs
 *   in_progress ── commit(token) ───▶ done{value}                 kept for the long TTL
 *   in_progress ── release(token) ──▶ (absent)                    a definite failure: let a retry run
 *   in_progress ── lease lapses ────▶ (absent)                    its owner died: the next claim wins
 *   done        ── TTL lapses ──────▶ (absent)
 *
 * claim is atomic (one SET NX); extend, commit and release are compare-and-set on the token, so a slow or
 * resurrected owner can never overwrite or delete a claim that has passed to someone else.
 * Every method rejects with StoreUnavailableError when the store cannot be reached.
 */
export type ClaimRecord = { state: "in_progress"; owner: string } | { state: "done"; value: string };

export type ClaimResult = { claimed: true; token: string } | { claimed: false; record: ClaimRecord };

export interface ClaimStore {
  /** Takes the key if absent. `owner` names the holder (a job id, an instance) for whoever finds the claim. */
  claim(key: string, owner: string, leaseMs: number): Promise<ClaimResult>;
  /** Renews the lease; false when the token no longer holds the key. */
  extend(key: string, token: string, leaseMs: number): Promise<boolean>;
  /** Marks the work done with `value`, kept for `ttlMs`; false when the token no longer holds the key. */
  commit(key: string, token: string, value: string, ttlMs: number): Promise<boolean>;
  /** Gives the key back; false when the token no longer holds it. */
  release(key: string, token: string): Promise<boolean>;
}
