import { randomBytes } from "node:crypto";
import {
  backoffDelay,
  type ConsumeOptions,
  type Consumer,
  isStoreAway,
  type Job,
  type JobHandler,
  type JobQueue,
  PermanentSendError,
} from "@resident/core";
import { type LaneSql, laneCall, msFromNow } from "./sql.ts";

export interface PgQueueOptions {
  /** Attempts per job, the first included. Default 8. */
  attempts?: number;
  /** First retry delay; it doubles per attempt (capped at 60 s), half of it random. Default 1000 ms. */
  backoffMs?: number;
  /** Jobs one consumer runs at once. Default 16. */
  concurrency?: number;
  /** A running job's lock, renewed every third of it while the handler runs. Default 30 s. */
  lockDurationMs?: number;
  /** How often a consumer with free slots looks for due jobs while the lane has work. Default 200 ms. */
  pollIntervalMs?: number;
  /**
   * How often it looks once it has taken nothing for `idleAfterMs`: the lane stands in while Redis is away, so it is
   * empty nearly always, and polling it at the busy rate cost every instance five statements a second for nothing.
   * A job enqueued through this queue object wakes its consumers at once. Defaults 2 s and 30 s.
   */
  idlePollIntervalMs?: number;
  idleAfterMs?: number;
  /** Polls at the busy rate, idle or not, while this says so: while Redis is away, other instances enqueue here. */
  expectingJobs?: () => boolean;
  /** How long a completed job's id keeps refusing a second enqueue. Default 1 h. */
  retainCompletedMs?: number;
  /** How long a failed job is kept for inspection. Default 7 days. */
  retainFailedMs?: number;
  /** Errors of the consumer's own bookkeeping (taking, finishing, renewing jobs). Default: ignored. */
  onError?: (error: Error) => void;
}

type JobRow = { id: string; data: unknown; attempt: number };
/** A row as taken: with the token its take locked it under. */
type HeldRow = JobRow & { token: string };

/*
 * Why by hand rather than pg-boss or graphile-worker: this lane stands in for the Redis queue while Redis is away, so it must
 * take core's job ids as they are (pg-boss wants UUIDs), run on the tenants' own database client — PGlite too —
 * and hand a dead worker's job to another within one lock length, renewed while the handler runs as the Redis
 * queue's lock is (graphile-worker frees a crashed worker's jobs after 4 hours; pg-boss expires jobs by a fixed time unless its
 * heartbeat is used, and brings its own schema, maintenance loop and connection pool). What it needs is one table
 * and four statements: insert-if-absent, take with FOR UPDATE SKIP LOCKED, renew, finish.
 */
const takeStatement = `
update lane_jobs j
set state = 'active', attempt = j.attempt + 1, token = $2, locked_until = ${msFromNow(3)}
from (
  select id from lane_jobs
  where (state = 'waiting' and run_at <= now()) or (state = 'active' and locked_until <= now())
  order by run_at
  limit $1
  for update skip locked
) due
where j.id = due.id
returning j.id, j.data, j.attempt`;

/** An active row is held by the token that took it, until its lock lapses. */
const heldBy = "id = $1 and token = $2 and state = 'active'";

/**
 * Renews the locks of every job a consumer holds ($1, $2: ids and tokens; $3: ms), one statement a tick; the rows are
 * locked in id order first, so that two ticks' statements never wait on each other's rows.
 */
const renewStatement = `
with held as (
  select j.id from lane_jobs j join unnest($1::text[], $2::text[]) as i(id, token) on j.id = i.id and j.token = i.token
  where j.state = 'active'
  order by j.id for update of j
)
update lane_jobs set locked_until = ${msFromNow(3)} where id in (select id from held)`;

/**
 * JobQueue on PostgreSQL, with RedisQueue's semantics: the caller's ids (a known id is not added twice, nor for
 * `retainCompletedMs` after it completed), retries with exponential backoff, and a job whose worker died taken by
 * another worker once its lock lapses. Finished rows are deleted by each consumer as it goes.
 */
export class PgQueue<T> implements JobQueue<T> {
  private readonly attempts: number;
  private readonly lockMs: number;
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly sql: LaneSql,
    private readonly options: PgQueueOptions = {},
  ) {
    this.attempts = options.attempts ?? 8;
    this.lockMs = options.lockDurationMs ?? 30_000;
  }

  enqueue(id: string, data: T): Promise<void> {
    return laneCall("enqueue", async () => {
      await this.sql.query("insert into lane_jobs (id, data) values ($1, $2) on conflict (id) do nothing", [
        id,
        JSON.stringify(data),
      ]);
      for (const wake of this.wakers) wake();
    });
  }

  depth(): Promise<number> {
    return laneCall("depth", async () => {
      const [row] = await this.sql.query<{ n: string }>(
        "select count(*) as n from lane_jobs where state in ('waiting', 'active')",
      );
      return Number(row?.n ?? 0);
    });
  }

  consume(handler: JobHandler<T>, options: ConsumeOptions = {}): Consumer {
    const concurrency = this.options.concurrency ?? 16;
    const pollMs = this.options.pollIntervalMs ?? 200;
    const idlePollMs = this.options.idlePollIntervalMs ?? 2_000;
    const idleAfterMs = this.options.idleAfterMs ?? 30_000;
    const expectingJobs = this.options.expectingJobs ?? (() => false);
    const takingJobs = options.takingJobs ?? (() => true);
    const onError = this.options.onError ?? (() => {});
    const running = new Set<Promise<void>>();
    // The jobs in hand, by id: their token, for the renewal of all their locks at once.
    const inHand = new Map<string, string>();
    const renewer = setInterval(() => {
      if (inHand.size === 0) return;
      this.sql.query(renewStatement, [[...inHand.keys()], [...inHand.values()], this.lockMs]).catch(onError);
    }, this.lockMs / 3);
    renewer.unref();
    const stopping = new AbortController();
    let lastSweep = 0;
    // Busy at first: a restart may find the jobs of an outage that is still going on.
    let lastTaken = Date.now();
    let lastLook = 0;
    // Set by an enqueue through this queue, during a nap or a look alike, so that none waits for the idle rate.
    let woken = false;
    let endNap: (() => void) | undefined;
    const poke = () => {
      woken = true;
      endNap?.();
    };
    this.wakers.add(poke);
    const nap = (ms: number) =>
      new Promise<void>((resolve) => {
        const end = () => {
          clearTimeout(timer);
          endNap = undefined;
          stopping.signal.removeEventListener("abort", end);
          resolve();
        };
        const timer = setTimeout(end, ms);
        endNap = end;
        stopping.signal.addEventListener("abort", end);
      });
    // An idle consumer's naps stay short, so that `expectingJobs` turning true is seen at once; only its statements
    // are spaced out.
    const shouldLook = () =>
      takingJobs() &&
      (woken || expectingJobs() || Date.now() - lastTaken < idleAfterMs || Date.now() - lastLook >= idlePollMs);

    const loop = async () => {
      while (!stopping.signal.aborted) {
        if (!shouldLook()) {
          await nap(pollMs);
          continue;
        }
        woken = false;
        lastLook = Date.now();
        const free = concurrency - running.size;
        let taken: HeldRow[] = [];
        if (free > 0) {
          taken = await this.take(free).catch((error: Error) => {
            onError(error);
            return [];
          });
        }
        if (taken.length > 0) lastTaken = Date.now();
        for (const row of taken) {
          inHand.set(row.id, row.token);
          const run = this.run(row, handler, onError).finally(() => {
            inHand.delete(row.id);
            running.delete(run);
          });
          running.add(run);
        }
        if (Date.now() - lastSweep > 60_000) {
          lastSweep = Date.now();
          this.sweep().catch(onError);
        }
        if (!stopping.signal.aborted && !woken && (taken.length < free || free === 0)) await nap(pollMs);
      }
    };
    const looping = loop();
    let closing: Promise<void> | undefined;
    return {
      close: () =>
        (closing ??= (async () => {
          stopping.abort();
          this.wakers.delete(poke);
          await looping;
          await Promise.allSettled(running);
          clearInterval(renewer);
        })()),
    };
  }

  private take(limit: number): Promise<HeldRow[]> {
    const token = randomBytes(12).toString("base64url");
    return this.sql
      .query<JobRow>(takeStatement, [limit, token, this.lockMs])
      .then((rows) => rows.map((row) => ({ ...row, token })));
  }

  private async run({ token, ...row }: HeldRow, handler: JobHandler<T>, onError: (error: Error) => void) {
    // jsonb comes back parsed, from node-postgres and PGlite alike.
    const job: Job<T> = { id: row.id, data: row.data as T, attempt: row.attempt };
    if (job.attempt > this.attempts) return this.finish(job.id, token, "failed").catch(onError);
    const outcome = await handler(job).then(
      () => "succeeded" as const,
      (error: unknown) => {
        if (error instanceof PermanentSendError) return "refused for good" as const;
        return isStoreAway(error) ? ("store away" as const) : ("failed" as const);
      },
    );
    // Should a finishing write fail (the database went away), the lock lapses and the job runs again: its handler
    // is idempotent (the reply ledger), as in the Redis queue.
    if (outcome === "succeeded") return this.finish(job.id, token, "completed").catch(onError);
    const last = job.attempt >= this.attempts;
    if (outcome === "refused for good" || (last && outcome === "failed"))
      return this.finish(job.id, token, "failed").catch(onError);
    const delay = backoffDelay(job.attempt, this.options.backoffMs ?? 1000);
    // A retry past the limit (a store was away) runs as the last attempt again: the take counts the attempt up.
    await this.sql
      .query(
        `update lane_jobs set state = 'waiting', token = null, locked_until = null, run_at = ${msFromNow(3)},
           attempt = attempt - $4 where ${heldBy}`,
        [job.id, token, delay, last ? 1 : 0],
      )
      .catch(onError);
  }

  private async finish(id: string, token: string, state: "completed" | "failed"): Promise<void> {
    await this.sql.query(
      `update lane_jobs set state = $3, token = null, locked_until = null, finished_at = now() where ${heldBy}`,
      [id, token, state],
    );
  }

  /** Deletes finished rows past their retention. */
  private async sweep(): Promise<void> {
    await this.sql.query(
      `delete from lane_jobs where (state = 'completed' and finished_at < now() - $1::double precision * interval '1 millisecond')
        or (state = 'failed' and finished_at < now() - $2::double precision * interval '1 millisecond')`,
      [this.options.retainCompletedMs ?? 3_600_000, this.options.retainFailedMs ?? 7 * 86_400_000],
    );
  }
}
