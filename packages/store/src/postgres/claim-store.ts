import { randomBytes } from "node:crypto";
import {
  type ClaimRecord,
  type ClaimResult,
  type ClaimStore,
  CorruptRecordError,
  type HeldClaim,
  type JournalEntry,
  TurnBatch,
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
 * Takes each key of `rows` (a query with columns key, token, owner, lease_ms) for its token and owner when it is
 * absent or its row has expired, in key order, as every statement of the lane takes its rows: two statements then
 * never wait on each other's rows. `returning key` only for the keys it took.
 */
const takeClaims = (rows: string) => `
  insert into lane_claims as c (key, token, owner, done, value, expires_at)
  select key, token, owner, false, null, now() + lease_ms * interval '1 millisecond' from (${rows}) as r order by key
  on conflict (key) do update
    set token = excluded.token, owner = excluded.owner, done = false, value = null, expires_at = excluded.expires_at
    where c.expires_at <= now()
  returning c.key`;

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
 * Takes each key of a batch ($1–$4: keys, tokens, owners, lease ms) when it is absent or its row has expired, in one
 * statement, which also reads the journals named for it ($5, $6: the claim's key and the journal's, pair by pair; null
 * when none was found) from the same snapshot, as one object by key. A key that is held
 * comes back with the holder's row — but from the statement's snapshot, which misses a row a concurrent claim
 * committed after it began (`held` false); `claim` then reads again.
 */
const claimStatement = `
with input as (
  select * from unnest($1::text[], $2::text[], $3::text[], $4::double precision[]) as i(key, token, owner, lease_ms)
),
taken as (${takeClaims("select * from input")}),
wanted as (select * from unnest($5::text[], $6::text[]) as w(claim_key, key))
select i.key, t.key is not null as taken, h.key is not null as held, h.owner, h.done, h.value,
  case when t.key is not null then
    (select jsonb_object_agg(j.key, j.value) from wanted w join lane_claims j on j.key = w.key
      where w.claim_key = i.key and j.done and j.expires_at > now())
  end as journaled
from input i
left join taken t on t.key = i.key
left join lane_claims h on t.key is null and h.key = i.key and h.expires_at > now()`;

const readStatement =
  "select false as taken, owner, done, value from lane_claims where key = $1 and expires_at > now()";

/** Writes a done row where the key is absent or expired; a live row is left as it is, and read back by `journal`. */
const journalStatement = writeJournal(1);

/*
 * For each call of a batch ($1–$3: the journal's keys, values and ttl ms; $4–$7: the claim's keys, tokens, owners and
 * lease ms), journalStatement's write and then claimStatement's claim, in one statement: the journal's value that
 * stands (written, or the live row's) and the claim taken or the holder's row. The journals are written before any
 * claim is taken (`done_first`), each in key order: the answers' keys sort before the sending marks. As in
 * claimStatement, a row committed by a concurrent statement after this one began is in neither read;
 * `journalAndClaim` then asks again separately.
 */
const journalAndClaimStatement = `
with input as (
  select * from unnest($1::text[], $2::text[], $3::double precision[], $4::text[], $5::text[], $6::text[],
    $7::double precision[]) as i(journal_key, journal_value, ttl_ms, key, token, owner, lease_ms)
),
journaled as (
  insert into lane_claims as c (key, token, owner, done, value, expires_at)
  select journal_key, null, null, true, journal_value, now() + ttl_ms * interval '1 millisecond'
  from input order by journal_key
  on conflict (key) do update
    set token = null, owner = null, done = true, value = excluded.value, expires_at = excluded.expires_at
    where c.expires_at <= now()
  returning c.key, c.value
),
taken as (${takeClaims("select input.* from input, (select count(*) from journaled) as done_first")})
select i.key, coalesce(j.value, standing.value) as journaled, standing.done as journal_done,
  t.key is not null as taken, holder.owner, holder.done, holder.value
from input i
left join journaled j on j.key = i.journal_key
left join lane_claims standing
  on j.key is null and standing.key = i.journal_key and standing.expires_at > now()
left join taken t on t.key = i.key
left join lane_claims holder on t.key is null and holder.key = i.key and holder.expires_at > now()`;

/** A claim's row in claimStatement's answer; `held`: the holder's row was read (false: neither it nor `taken`). */
type BatchedClaimRow = ClaimRow & { key: string; held?: boolean };

interface ClaimCall {
  key: string;
  token: string;
  owner: string;
  leaseMs: number;
  readJournals: readonly string[];
}

interface JournalAndClaimCall {
  entry: JournalEntry;
  key: string;
  token: string;
  owner: string;
  leaseMs: number;
}

interface ExtendCall {
  key: string;
  token: string;
  leaseMs: number;
}

interface CommitCall {
  key: string;
  token: string;
  value: string;
  ttlMs: number;
  release: HeldClaim | undefined;
}

const keyOfCall = (call: { key: string }) => [call.key];

type JournalAndClaimRow = Omit<ClaimRow, "journaled"> & { journaled: string | null; journal_done: boolean | null };

/** A row is held by `token`. */
const heldBy = "key = $1 and token = $2 and not done and expires_at > now()";

/*
 * Commits each claim of a batch ($1–$4: keys, tokens, values, ttl ms) still held by its token, and releases the claim
 * named beside it ($5, $6: key and token, null for none) only if that commit took: one statement. The held rows are
 * locked in key order first (the reply keys all sort before the sending marks), as every statement of the lane
 * takes its rows, so that two statements never wait on each other's rows.
 */
const commitStatement = `
with input as (
  select * from unnest($1::text[], $2::text[], $3::text[], $4::double precision[], $5::text[], $6::text[])
    as i(key, token, value, ttl_ms, release_key, release_token)
),
locked as (
  select c.key from lane_claims c join input i on c.key = i.key
  where c.token = i.token and not c.done and c.expires_at > now()
  order by c.key for update of c
),
committed as (
  update lane_claims c
    set token = null, done = true, value = i.value, expires_at = now() + i.ttl_ms * interval '1 millisecond'
  from input i
  where c.key = i.key and c.key in (select key from locked)
    and c.token = i.token and not c.done and c.expires_at > now()
  returning c.key
),
released as (
  delete from lane_claims d using input i
  where d.key = i.release_key and d.token = i.release_token and not d.done and d.expires_at > now()
    and i.key in (select key from committed)
  returning 1
)
select key from committed`;

/*
 * Renews each claim of a batch ($1–$3: keys, tokens, lease ms) still held by its token, the rows locked in key order
 * first as in commitStatement: one statement for every lease an instance renews on one tick.
 */
const extendStatement = `
with input as (
  select * from unnest($1::text[], $2::text[], $3::double precision[]) as i(key, token, lease_ms)
),
locked as (
  select c.key from lane_claims c join input i on c.key = i.key
  where c.token = i.token and not c.done and c.expires_at > now()
  order by c.key for update of c
)
update lane_claims c set expires_at = now() + i.lease_ms * interval '1 millisecond'
from input i
where c.key = i.key and c.key in (select key from locked)
  and c.token = i.token and not c.done and c.expires_at > now()
returning c.key`;

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
  /** The claims of one event-loop turn, in one statement: the jobs a consumer reads together claim together. */
  private readonly claims = new TurnBatch<ClaimCall, BatchedClaimRow>(async (calls) => {
    const journals = calls.flatMap(({ key, readJournals }) => readJournals.map((journal) => [key, journal]));
    const rows = await this.sql.query<BatchedClaimRow>(claimStatement, [
      calls.map((call) => call.key),
      calls.map((call) => call.token),
      calls.map((call) => call.owner),
      calls.map((call) => call.leaseMs),
      journals.map(([key]) => key),
      journals.map(([, journal]) => journal),
    ]);
    const rowOf = new Map(rows.map((row) => [row.key, row]));
    const unseen = { taken: false, held: false, owner: null, done: null, value: null };
    return calls.map((call) => rowOf.get(call.key) ?? { key: call.key, ...unseen });
  }, keyOfCall);
  /** The journal-and-claims of one event-loop turn, in one statement. */
  private readonly journalsAndClaims = new TurnBatch<JournalAndClaimCall, JournalAndClaimRow | undefined>(
    async (calls) => {
      const rows = await this.sql.query<JournalAndClaimRow & { key: string }>(journalAndClaimStatement, [
        calls.map((call) => call.entry.key),
        calls.map((call) => call.entry.value),
        calls.map((call) => call.entry.ttlMs),
        calls.map((call) => call.key),
        calls.map((call) => call.token),
        calls.map((call) => call.owner),
        calls.map((call) => call.leaseMs),
      ]);
      const rowOf = new Map(rows.map((row) => [row.key, row]));
      return calls.map((call) => rowOf.get(call.key));
    },
    (call) => [call.entry.key, call.key],
  );
  /** The renewals of one event-loop turn (a LeaseKeeper's tick), in one statement. */
  private readonly extends = new TurnBatch<ExtendCall, boolean>(async (calls) => {
    const rows = await this.sql.query<{ key: string }>(extendStatement, [
      calls.map((call) => call.key),
      calls.map((call) => call.token),
      calls.map((call) => call.leaseMs),
    ]);
    const renewed = new Set(rows.map((row) => row.key));
    return calls.map((call) => renewed.has(call.key));
  }, keyOfCall);
  /** The commits of one event-loop turn, in one statement. */
  private readonly commits = new TurnBatch<CommitCall, boolean>(async (calls) => {
    const rows = await this.sql.query<{ key: string }>(commitStatement, [
      calls.map((call) => call.key),
      calls.map((call) => call.token),
      calls.map((call) => call.value),
      calls.map((call) => call.ttlMs),
      calls.map((call) => call.release?.key ?? null),
      calls.map((call) => call.release?.token ?? null),
    ]);
    const committed = new Set(rows.map((row) => row.key));
    return calls.map((call) => committed.has(call.key));
  }, keyOfCall);

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
        let row = await this.claims.call({ key, token, owner, leaseMs, readJournals: readJournals ?? [] });
        if (!row.taken && !row.held) row = (await this.sql.query<BatchedClaimRow>(readStatement, [key]))[0] ?? row;
        if (row.taken)
          return readJournals ? { claimed: true, token, journaled: row.journaled ?? {} } : { claimed: true, token };
        if (row.held !== false) return { claimed: false, record: toRecord(row) };
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
    const row = await laneCall("journalAndClaim", () =>
      this.journalsAndClaims.call({ entry, key, token, owner, leaseMs }),
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
    return laneCall("extend", () => this.extends.call({ key, token, leaseMs }));
  }

  commit(key: string, token: string, value: string, ttlMs: number, release?: HeldClaim): Promise<boolean> {
    return laneCall("commit", () => this.commits.call({ key, token, value, ttlMs, release }));
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
