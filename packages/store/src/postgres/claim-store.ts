import { randomBytes } from "node:crypto";
import {
  type ClaimRecord,
  type ClaimResult,
  type ClaimStore,
  CorruptRecordError,
  type HeldClaim,
  type JournalEntry,
} from "@resident/core";
import { type LaneSql, laneCall, msFromNow } from "./sql.ts";

type ClaimRow = {
  taken: boolean;
  owner: string | null;
  done: boolean | null;
  value: string | null;
  journaled?: Record<string, string> | null;
};

/**
 * Takes the key ($k) for the token and owner ($k+1, $k+2) for $k+3 ms when it is absent or its row has expired;
 * `returning 1` only if it did. With `after` (a CTE of the same statement), only once that CTE has run to its end:
 * PostgreSQL runs a statement's CTEs in no set order, and two statements taking two rows in opposite orders deadlock.
 */
const takeClaim = (k: number, after?: string) => `
  insert into lane_claims as c (key, token, owner, done, value, expires_at)
  select $${k}::text, $${k + 1}::text, $${k + 2}::text, false, null, ${msFromNow(k + 3)}
  ${after ? `from (select count(*) from ${after}) as done_first` : ""}
  on conflict (key) do update
    set token = excluded.token, owner = excluded.owner, done = false, value = null, expires_at = excluded.expires_at
    where c.expires_at <= now()
  returning 1`;

/**
 * Writes a done row with the value ($k+1) under the key ($k) for $k+2 ms where the key is absent or expired; a live
 * row is left as it is. `returning value` only if it wrote.
 */
const writeJournal = (k: number) => `
  insert into lane_claims as c (key, token, owner, done, value, expires_at)
  values ($${k}, null, null, true, $${k + 1}, ${msFromNow(k + 2)})
  on conflict (key) do update
    set token = null, owner = null, done = true, value = excluded.value, expires_at = excluded.expires_at
    where c.expires_at <= now()
  returning value`;

/*
 * Takes the key when it is absent or its row has expired, in one statement, which also reads the journals named by $5
 * (an array; null when none was found) from the same snapshot, as one object by key. When the key is held the
 * statement also reads the holder's row — but from the statement's snapshot, which misses a row a concurrent claim
 * committed after it began; `claim` then reads again.
 */
const claimStatement = `
with taken as (${takeClaim(1)})
select true as taken, null as owner, null as done, null as value,
  (select jsonb_object_agg(key, value) from lane_claims
    where key = any($5::text[]) and done and expires_at > now()) as journaled
from taken
union all
select false, owner, done, value, null
from lane_claims where key = $1 and expires_at > now() and not exists (select 1 from taken)`;

const readStatement =
  "select false as taken, owner, done, value from lane_claims where key = $1 and expires_at > now()";

/** Writes a done row where the key is absent or expired; a live row is left as it is, and read back by `journal`. */
const journalStatement = writeJournal(1);

/*
 * journalStatement on $1–$3, then claimStatement's claim on $4–$7, in one statement: the journal's value that stands
 * (written, or the live row's) and the claim taken or the holder's row. As in claimStatement, a row committed by a
 * concurrent statement after this one began is in neither read; `journalAndClaim` then asks again separately.
 */
const journalAndClaimStatement = `
with journaled as (${writeJournal(1)}),
taken as (${takeClaim(4, "journaled")}),
standing as (
  select value, done from lane_claims where key = $1 and expires_at > now() and not exists (select 1 from journaled)
)
select
  coalesce((select value from journaled), (select value from standing)) as journaled,
  (select done from standing) as journal_done,
  exists (select 1 from taken) as taken,
  holder.owner, holder.done, holder.value
from (select 1) as one
left join lane_claims as holder
  on holder.key = $4 and holder.expires_at > now() and not exists (select 1 from taken)`;

type JournalAndClaimRow = Omit<ClaimRow, "journaled"> & { journaled: string | null; journal_done: boolean | null };

/** A row is held by `token` while it is in progress and unexpired. */
const heldBy = "key = $1 and token = $2 and not done and expires_at > now()";

const commitStatement = `update lane_claims set token = null, done = true, value = $3, expires_at = ${msFromNow(4)} where ${heldBy} returning 1`;

/** The commit, and the release of the claim held by $6 under $5 only if the commit took: one statement. */
const commitAndReleaseStatement = `
with committed as (${commitStatement}),
released as (
  delete from lane_claims
  where key = $5 and token = $6 and not done and expires_at > now() and exists (select 1 from committed)
  returning 1
)
select 1 from committed`;

export interface PgClaimStoreOptions {
  /** How often expired rows are deleted. Default 60 s. */
  sweepIntervalMs?: number;
}

/**
 * ClaimStore on PostgreSQL, with RedisClaimStore's semantics: `INSERT … ON CONFLICT` on the key is as atomic as SET NX,
 * and extend, commit and release are compare-and-set on the token in their WHERE clause. Expiry is checked against
 * the server's clock in every statement, so an expired row is absent to everyone at once; a sweep deletes them.
 * Every method rejects with StoreUnavailableError while the database is away.
 */
export class PgClaimStore implements ClaimStore {
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly sql: LaneSql,
    options: PgClaimStoreOptions = {},
  ) {
    this.sweeper = setInterval(() => {
      this.sql.query("delete from lane_claims where expires_at <= now()").catch(() => {});
    }, options.sweepIntervalMs ?? 60_000);
    this.sweeper.unref();
  }

  claim(key: string, owner: string, leaseMs: number, readJournals?: readonly string[]): Promise<ClaimResult> {
    const token = randomBytes(16).toString("base64url");
    return laneCall("claim", async () => {
      // A holder seen by neither read let go in between: the key is free again, so try to take it once more.
      for (let attempt = 1; ; attempt++) {
        const params = [key, token, owner, leaseMs, readJournals ?? []];
        let [row] = await this.sql.query<ClaimRow>(claimStatement, params);
        row ??= (await this.sql.query<ClaimRow>(readStatement, [key]))[0];
        if (row?.taken)
          return readJournals ? { claimed: true, token, journaled: row.journaled ?? {} } : { claimed: true, token };
        if (row) return { claimed: false, record: toRecord(row) };
        if (attempt >= 3) throw new Error(`claim of ${key} kept changing hands`);
      }
    });
  }

  journal(key: string, value: string, ttlMs: number): Promise<string> {
    return laneCall("journal", async () => {
      // A live row seen by neither statement lapsed in between: the key is free again, so write once more.
      for (let attempt = 1; ; attempt++) {
        const [written] = await this.sql.query<{ value: string }>(journalStatement, [key, value, ttlMs]);
        if (written) return written.value;
        const [row] = await this.sql.query<ClaimRow>(readStatement, [key]);
        if (row) return journaledValue(key, row);
        if (attempt >= 3) throw new Error(`journal of ${key} kept changing hands`);
      }
    });
  }

  /** One statement; a row that changed hands as it ran (seen by neither read) sends that half down its own path. */
  async journalAndClaim(entry: JournalEntry, key: string, owner: string, leaseMs: number) {
    const token = randomBytes(16).toString("base64url");
    const params = [entry.key, entry.value, entry.ttlMs, key, token, owner, leaseMs];
    const [row] = await laneCall("journalAndClaim", () =>
      this.sql.query<JournalAndClaimRow>(journalAndClaimStatement, params),
    );
    if (row?.journal_done === false) throw new CorruptRecordError(`${entry.key} is claimed, not journaled`);
    const journaled = row?.journaled ?? (await this.journal(entry.key, entry.value, entry.ttlMs));
    const claim: ClaimResult = row?.taken
      ? { claimed: true, token }
      : row?.done != null
        ? { claimed: false, record: toRecord(row) }
        : await this.claim(key, owner, leaseMs);
    return { journaled, claim };
  }

  journaled(key: string): Promise<string | undefined> {
    return laneCall("journaled", async () => {
      const [row] = await this.sql.query<ClaimRow>(readStatement, [key]);
      return row ? journaledValue(key, row) : undefined;
    });
  }

  extend(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.changed("extend", `update lane_claims set expires_at = ${msFromNow(3)} where ${heldBy} returning 1`, [
      key,
      token,
      leaseMs,
    ]);
  }

  commit(key: string, token: string, value: string, ttlMs: number, release?: HeldClaim): Promise<boolean> {
    const params = [key, token, value, ttlMs];
    if (!release) return this.changed("commit", commitStatement, params);
    return this.changed("commit", commitAndReleaseStatement, [...params, release.key, release.token]);
  }

  settle(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.changed(
      "settle",
      `update lane_claims set token = null, done = true, value = $2, expires_at = ${msFromNow(3)} where key = $1 and expires_at > now() returning 1`,
      [key, value, ttlMs],
    );
  }

  release(key: string, token: string): Promise<boolean> {
    return this.changed("release", `delete from lane_claims where ${heldBy} returning 1`, [key, token]);
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private changed(operation: string, statement: string, params: unknown[]): Promise<boolean> {
    return laneCall(operation, async () => (await this.sql.query(statement, params)).length === 1);
  }
}

function journaledValue(key: string, row: ClaimRow): string {
  if (!row.done) throw new CorruptRecordError(`${key} is claimed, not journaled`);
  return row.value ?? "";
}

function toRecord(row: Pick<ClaimRow, "owner" | "done" | "value">): ClaimRecord {
  return row.done ? { state: "done", value: row.value ?? "" } : { state: "in_progress", owner: row.owner ?? "" };
}
