import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { DatabaseUnavailableError, PermanentSendError, StoreUnavailableError } from "@resident/core";
import { createDatabase, type TestDatabase } from "@resident/testkit/processes";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureLaneSchema, type LaneSql, PgClaimStore, PgQueue } from "../src/index.ts";
import { claimCases } from "./support/claim-contract.ts";

/* The PostgreSQL lane against the machine's PostgreSQL: the claim contract, and the queue's at-least-once runs. */

let database: TestDatabase;
let pool: pg.Pool;
let sql: LaneSql;
let claims: PgClaimStore;

beforeAll(async () => {
  database = await createDatabase();
  pool = new pg.Pool({ connectionString: database.url });
  // Dropping the database at the end terminates its connections; an idle one's error is no failure of the lane.
  pool.on("error", () => {});
  sql = { query: async (text, params = []) => (await pool.query(text, [...params])).rows };
  await Promise.all([ensureLaneSchema(sql), ensureLaneSchema(sql)]);
  claims = new PgClaimStore(sql);
});
afterAll(async () => {
  claims?.close();
  await pool?.end();
  await database?.drop();
});

const waiting = { timeout: 10_000, interval: 20 };

describe("PgClaimStore", () => {
  claimCases(() => claims);

  it("claims, renews, commits and journal-and-claims the calls of one event-loop turn in one statement each, a repeated key in the next", async () => {
    const statements: string[] = [];
    const counted = new PgClaimStore({
      query: (text, params) => {
        statements.push(text.trimStart().split(/\s/, 1)[0] ?? "");
        return sql.query(text, params);
      },
    });
    const keys = Array.from({ length: 8 }, (_, i) => `reply:ws-batch:${randomUUID()}:${i}`);
    const claims = await Promise.all([...keys, keys[0] ?? ""].map((key, i) => counted.claim(key, `job:${i}`, 10_000)));
    expect(claims.filter((claim) => claim.claimed)).toHaveLength(8);
    // The repeated key goes in a statement of its own, sent while the first runs: either may take it.
    const [winner, loser] = claims[0]?.claimed ? [0, 8] : [8, 0];
    expect(claims[loser]).toEqual({ claimed: false, record: { state: "in_progress", owner: `job:${winner}` } });
    // When its statement loses to the first, it may not see the winner's row in its snapshot, and reads it again.
    expect(statements.filter((statement) => statement === "with")).toHaveLength(2);
    statements.length = 0;
    const tokens = claims.map((claim) => (claim.claimed ? claim.token : ""));
    if (winner === 8) tokens[0] = tokens[8] ?? "";
    const renewals = [
      ...keys.map((key, i) => counted.extend(key, tokens[i] ?? "", 10_000)),
      counted.extend(keys[1] ?? "", "not its token", 10_000),
      counted.extend(`reply:ws-batch:${randomUUID()}`, "no claim", 10_000),
    ];
    expect(await Promise.all(renewals)).toEqual([...keys.map(() => true), false, false]);
    // The second call on keys[1] waits for the next turn's statement.
    expect(statements).toHaveLength(2);
    statements.length = 0;
    expect(await Promise.all(keys.map((key, i) => counted.commit(key, tokens[i] ?? "", "sent", 10_000)))).toEqual(
      keys.map(() => true),
    );
    expect(statements).toHaveLength(1);
    const answers = await Promise.all(
      keys.map((key, i) =>
        counted.journalAndClaim(
          { key: `answer:${key}`, value: `answer ${i}`, ttlMs: 10_000 },
          `sending:${key}`,
          "job",
          10_000,
        ),
      ),
    );
    expect(answers.map(({ journaled, claim }) => [journaled, claim.claimed])).toEqual(
      keys.map((_, i) => [`answer ${i}`, true]),
    );
    expect(statements).toHaveLength(2);
    counted.close();
  });

  it("never deadlocks two instances whose batches take the same rows in opposite orders", async () => {
    const [a, b] = [new PgClaimStore(sql), new PgClaimStore(sql)];
    for (let round = 0; round < 5; round++) {
      const keys = Array.from({ length: 30 }, (_, i) => `reply:ws-order:${randomUUID()}:${i}`);
      // Short leases: the second round of claims finds them lapsed and takes them over, rows locked and updated.
      const claimAll = (store: PgClaimStore, order: string[], owner: string) =>
        Promise.all(order.map((key) => store.claim(key, owner, 5)));
      await Promise.all([claimAll(a, keys, "a"), claimAll(b, [...keys].reverse(), "b")]);
      await sleep(10);
      const [byA, byB] = await Promise.all([claimAll(a, keys, "a2"), claimAll(b, [...keys].reverse(), "b2")]);
      const winners = keys.map((_, i) => byA[i]?.claimed || byB[keys.length - 1 - i]?.claimed);
      expect(winners).toEqual(keys.map(() => true));
    }
    a.close();
    b.close();
  });

  it("rejects every call of a batch whose statement failed, each as the lane being away", async () => {
    const away = new PgClaimStore({
      query: () => Promise.reject(new DatabaseUnavailableError("connection refused")),
    });
    const calls = ["a", "b", "c"].map((n) => away.claim(`reply:ws-away:${n}`, "job", 10_000));
    for (const call of calls) await expect(call).rejects.toBeInstanceOf(StoreUnavailableError);
    away.close();
  });

  it("sweeps expired rows without being asked", async () => {
    const sweeping = new PgClaimStore(sql, { sweepIntervalMs: 50 });
    await sweeping.claim("event:ws-sweep:e1", "a", 10);
    await vi.waitFor(
      async () => expect((await sql.query("select 1 from lane_claims where key = 'event:ws-sweep:e1'")).length).toBe(0),
      waiting,
    );
    sweeping.close();
  });
});

describe("PgQueue", () => {
  it("runs each of many jobs once across two consumers and refuses a known id", async () => {
    const queue = new PgQueue<{ n: number }>(sql, { pollIntervalMs: 20 });
    const ran: string[] = [];
    const consumers = [1, 2].map(() => queue.consume(async (job) => void ran.push(job.id)));
    await Promise.all(Array.from({ length: 60 }, (_, n) => queue.enqueue(`many:${n % 50}`, { n })));
    await vi.waitFor(() => expect(ran.length).toBeGreaterThanOrEqual(50), waiting);
    await vi.waitFor(async () => expect(await queue.depth()).toBe(0), waiting);
    await queue.enqueue("many:1", { n: 1 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await Promise.all(consumers.map((consumer) => consumer.close()));
    expect(ran.sort()).toEqual(Array.from({ length: 50 }, (_, n) => `many:${n}`).sort());
  });

  it("retries a failing job with backoff until it succeeds", async () => {
    const queue = new PgQueue<string>(sql, { pollIntervalMs: 20, backoffMs: 50 });
    const attempts: number[] = [];
    const consumer = queue.consume(async (job) => {
      if (job.id !== "flaky") return;
      attempts.push(job.attempt);
      if (job.attempt < 3) throw new Error("not yet");
    });
    await queue.enqueue("flaky", "x");
    await vi.waitFor(() => expect(attempts.length).toBe(3), waiting);
    await consumer.close();
    expect(attempts).toEqual([1, 2, 3]);
  });

  it("retries a job whose store is away past its attempts, as its last attempt, until it succeeds", async () => {
    const queue = new PgQueue<string>(sql, { pollIntervalMs: 20, backoffMs: 20, attempts: 2 });
    const attempts: number[] = [];
    let done = false;
    const consumer = queue.consume(async (job) => {
      if (job.id !== "outage") return;
      attempts.push(job.attempt);
      if (attempts.length <= 2) throw new DatabaseUnavailableError("PostgreSQL is away");
      if (attempts.length <= 4) throw new StoreUnavailableError("Redis is away");
      done = true;
    });
    await queue.enqueue("outage", "x");
    await vi.waitFor(() => expect(done).toBe(true), waiting);
    await consumer.close();
    expect(attempts).toEqual([1, 2, 2, 2, 2]);
  });

  it("ends a job retried past its attempts once it fails for a reason of its own", async () => {
    const queue = new PgQueue<string>(sql, { pollIntervalMs: 20, backoffMs: 20, attempts: 2 });
    const attempts: number[] = [];
    const consumer = queue.consume(async (job) => {
      if (job.id !== "outage-then-own") return;
      attempts.push(job.attempt);
      throw attempts.length <= 3 ? new DatabaseUnavailableError("PostgreSQL is away") : new Error("its own failure");
    });
    await queue.enqueue("outage-then-own", "x");
    await vi.waitFor(() => expect(attempts).toHaveLength(4), waiting);
    await sleep(300);
    await consumer.close();
    expect(attempts).toEqual([1, 2, 2, 2]);
  });

  it("takes no new job while its consumer says it takes none, and takes them once it does again", async () => {
    const queue = new PgQueue<string>(sql, { pollIntervalMs: 20 });
    let taking = false;
    const seen: string[] = [];
    const consumer = queue.consume(
      async (job) => {
        if (job.id === "paused") seen.push(job.id);
      },
      { takingJobs: () => taking },
    );
    await queue.enqueue("paused", "x");
    await sleep(300);
    expect(seen).toEqual([]);
    taking = true;
    await vi.waitFor(() => expect(seen).toEqual(["paused"]), waiting);
    await consumer.close();
  });

  it("ends a job refused for good at once, with none of its remaining attempts", async () => {
    const queue = new PgQueue<string>(sql, { pollIntervalMs: 20, backoffMs: 20 });
    const attempts: number[] = [];
    const consumer = queue.consume(async (job) => {
      if (job.id !== "refused") return;
      attempts.push(job.attempt);
      throw new PermanentSendError("not_in_channel");
    });
    await queue.enqueue("refused", "x");
    await vi.waitFor(() => expect(attempts.length).toBe(1), waiting);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await consumer.close();
    expect(attempts).toEqual([1]);
  });

  it("polls an idle lane seldom, and at once a job enqueued through it or while told jobs are coming", async () => {
    const takes: string[] = [];
    const counted: LaneSql = {
      query: (text, params) => {
        if (text.includes("for update skip locked")) takes.push(text);
        return sql.query(text, params);
      },
    };
    let sharedStoreAway = false;
    const queue = new PgQueue<string>(counted, {
      pollIntervalMs: 20,
      idleAfterMs: 100,
      idlePollIntervalMs: 60_000,
      expectingJobs: () => sharedStoreAway,
    });
    const ran: string[] = [];
    const consumer = queue.consume(async (job) => {
      if (job.id.startsWith("idle:")) ran.push(job.id);
    });
    await vi.waitFor(() => expect(takes.length).toBeGreaterThan(2), waiting);
    await sleep(300);
    const idleTakes = takes.length;
    // Another instance's job: found at the next idle poll, a minute away.
    await sql.query("insert into lane_jobs (id, data) values ('idle:theirs', '\"x\"')");
    await sleep(300);
    expect(takes.length).toBe(idleTakes);
    expect(ran).toEqual([]);
    await queue.enqueue("idle:ours", "x");
    const soon = { timeout: 2_000, interval: 10 };
    await vi.waitFor(() => expect(ran.sort()).toEqual(["idle:ours", "idle:theirs"]), soon);
    // Idle again; then the shared store goes away, and other instances' jobs are found at the busy rate.
    await sleep(300);
    sharedStoreAway = true;
    await sleep(100);
    await sql.query("insert into lane_jobs (id, data) values ('idle:theirs-in-outage', '\"x\"')");
    await vi.waitFor(() => expect(ran).toContain("idle:theirs-in-outage"), soon);
    await consumer.close();
  });

  it("keeps the locks of every job in hand past their length, all of them in one statement a tick", async () => {
    const renewals: number[] = [];
    const counted: LaneSql = {
      query: (text, params) => {
        if (text.includes("update lane_jobs set locked_until"))
          renewals.push((params?.[0] as unknown[] | undefined)?.length ?? 0);
        return sql.query(text, params);
      },
    };
    const queue = new PgQueue<string>(counted, { pollIntervalMs: 20, lockDurationMs: 600, concurrency: 8 });
    const ids = Array.from({ length: 8 }, (_, n) => `long:${randomUUID()}:${n}`);
    const ran: string[] = [];
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const consumers = [1, 2].map(() =>
      queue.consume(async (job) => {
        if (!ids.includes(job.id)) return;
        ran.push(job.id);
        await released;
      }),
    );
    await Promise.all(ids.map((id) => queue.enqueue(id, "x")));
    await vi.waitFor(() => expect(ran).toHaveLength(8), waiting);
    renewals.length = 0;
    const from = performance.now();
    // Three lock lengths: a job whose lock lapsed would be taken, and run, by the other consumer.
    await sleep(1_800);
    const ticks = Math.floor((performance.now() - from) / 200) + 1;
    const held = [...renewals];
    release();
    await vi.waitFor(async () => expect(await queue.depth()).toBe(0), waiting);
    await Promise.all(consumers.map((consumer) => consumer.close()));
    expect(ran.sort()).toEqual([...ids].sort());
    // Each consumer's tick (a third of the lock) renews all it holds at once: a statement a tick each, not one for
    // every job; the eight jobs split between two consumers, a statement renews four of them or more on average.
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThanOrEqual(2 * ticks);
    expect(held.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(4 * held.length);
  });

  it("hands the job of a worker that died to another once its lock lapses", async () => {
    const queue = new PgQueue<string>(sql, { pollIntervalMs: 20 });
    await queue.enqueue("orphan", "x");
    // Taken by a worker that then died: active, its lock run out, its token nobody's.
    await sql.query(
      "update lane_jobs set state = 'active', attempt = 1, token = 'dead', locked_until = now() - interval '1 second' where id = 'orphan'",
    );
    const ran: number[] = [];
    const consumer = queue.consume(async (job) => {
      if (job.id === "orphan") ran.push(job.attempt);
    });
    await vi.waitFor(() => expect(ran.length).toBe(1), waiting);
    await consumer.close();
    expect(ran).toEqual([2]);
  });
});
