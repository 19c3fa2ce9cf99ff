import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { backoffDelay, type Consumer, isStoreAway, type JobHandler, PermanentSendError } from "@resident/core";
import type { RedisClient } from "./connection.ts";

export interface QueueKeys {
  stream: string;
  /** Retries waiting for their backoff, scored by due time. */
  delayed: string;
  /** The id's mark: set while the job lives, kept for the retention after it ended. */
  mark(id: string): string;
}

export interface ConsumerSettings {
  group: string;
  attempts: number;
  backoffMs: number;
  concurrency: number;
  lockMs: number;
  stalledIntervalMs: number;
  maxStalledCount: number;
  retainCompletedMs: number;
  retainFailedMs: number;
  /** A consumer name with nothing pending, silent this long, is deleted from the group (by any consumer). */
  forgetConsumersAfterMs: number;
  onError: (error: Error) => void;
  /** While false, neither reads nor takeovers take entries (ConsumeOptions.takingJobs). */
  takingJobs: () => boolean;
}

/** XREADGROUP's and XAUTOCLAIM's entry: its id and its fields as a flat list (`id`, `data`, `attempt`). */
type Entry = [entryId: string, fields: string[]];

/** How long one blocking read waits for new entries before it is sent again. */
const blockMs = 5_000;
/** The longest a consumer goes without looking for due retries (another consumer's retries included). */
const promotePollMs = 1_000;
/** The pause after a failed round of a background task. */
const pauseAfterErrorMs = 1_000;
/** How often a consumer that takes no jobs for now asks again. */
const pausedPollMs = 250;

interface Settlement {
  entryId: string;
  id: string;
  mark: string;
  ttlMs: number;
  done: () => void;
}

/**
 * One consumer of the group: a blocking read of new entries (on a connection of its own, as XREADGROUP BLOCK holds
 * its connection), and four rounds on the shared worker connection: the locks of the entries in hand renewed, entries
 * whose lock lapsed taken over, due retries moved into the stream, the names of consumers gone for good deleted. An
 * entry's lock is its idle time in the group's pending list: renewed only for the entries this consumer holds in
 * hand, so an entry delivered by a read whose reply was lost (Redis died mid-reply, or ioredis sent the read again
 * after reconnecting) ages and is taken over.
 */
export class StreamConsumer<T> implements Consumer {
  private readonly name = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly reader: RedisClient;
  private readonly inHand = new Map<string, Promise<void>>();
  private readonly stops: (() => void)[] = [];
  private readonly stopRenewing: () => void;
  private settlements: Settlement[] = [];
  private groupReady = false;
  /** XAUTOCLAIM's cursor, carried from call to call: restarting at 0-0 could leave entries further on unclaimed. */
  private cursor = "0-0";
  private slotFreed = () => {};
  /**
   * A takeover round found no free slot, or filled every one (more may be waiting): the next free slot takes over
   * before reading new entries, so a busy consumer does not leave a dead one's jobs behind fresh ones.
   */
  private takeoverOwed = false;
  private wakePromote: (withinMs: number) => void;
  private stopped = false;
  private closing?: Promise<void>;
  /** The read loop, and the takeover round under way (one at a time): what may still hand this consumer entries. */
  private readonly reading: Promise<void>;
  private takeover?: Promise<boolean>;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: QueueKeys,
    private readonly handler: JobHandler<T>,
    private readonly settings: ConsumerSettings,
  ) {
    this.reader = (client as { duplicate(): RedisClient }).duplicate();
    this.reader.on("error", settings.onError);
    this.stopRenewing = this.repeat(() => this.renew(), settings.lockMs / 2).stop;
    this.stops.push(this.repeat(() => this.reclaim(), settings.stalledIntervalMs).stop);
    this.stops.push(this.repeat(() => this.forget(), settings.forgetConsumersAfterMs).stop);
    const promote = this.repeat(() => this.promote(), 0);
    this.stops.push(promote.stop);
    this.wakePromote = promote.wake;
    this.reading = this.readLoop();
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async readLoop(): Promise<void> {
    const { group, concurrency } = this.settings;
    while (!this.stopped) {
      const free = concurrency - this.inHand.size;
      try {
        if (!this.groupReady) await this.createGroup();
        if (free <= 0) {
          await new Promise<void>((resolve) => {
            this.slotFreed = resolve;
          });
          continue;
        }
        if (!this.settings.takingJobs()) {
          await new Promise((resolve) => setTimeout(resolve, pausedPollMs));
          continue;
        }
        if (this.takeoverOwed && !this.takeover) {
          await this.reclaim();
          continue;
        }
        const reply = (await this.reader.xreadgroup(
          "GROUP",
          group,
          this.name,
          "COUNT",
          free,
          "BLOCK",
          blockMs,
          "STREAMS",
          this.keys.stream,
          ">",
        )) as [string, Entry[]][] | null;
        for (const [, entries] of reply ?? []) for (const entry of entries) this.take(entry);
      } catch (error) {
        if (this.stopped) return;
        this.failed(error);
        await new Promise((resolve) => setTimeout(resolve, pauseAfterErrorMs));
      }
    }
  }

  /**
   * From the stream's first entry, so that entries added before the group existed are read too. Idempotent, and done
   * again whenever Redis answers NOGROUP: a Redis restarted from an AOF that lost its last second may lack the group.
   */
  private async createGroup(): Promise<void> {
    try {
      await this.client.xgroup("CREATE", this.keys.stream, this.settings.group, "0", "MKSTREAM");
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith("BUSYGROUP"))) throw error;
    }
    this.groupReady = true;
  }

  private take([entryId, fields]: Entry, stalled = false): void {
    if (this.inHand.has(entryId)) return;
    const run = this.run(entryId, fields, stalled).finally(() => {
      this.inHand.delete(entryId);
      this.slotFreed();
    });
    this.inHand.set(entryId, run);
  }

  private async run(entryId: string, fields: string[], stalledTooOften: boolean): Promise<void> {
    const field = (name: string) => fields[fields.indexOf(name) + 1] ?? "";
    const id = field("id");
    const data = field("data");
    const attempt = Number(field("attempt"));
    const { attempts, backoffMs, retainCompletedMs, retainFailedMs } = this.settings;
    if (stalledTooOften) {
      return this.settle(entryId, id, { failedReason: "stalled too often", attempt, data }, retainFailedMs);
    }
    try {
      await this.handler({ id, data: JSON.parse(data) as T, attempt });
    } catch (error) {
      const last = attempt >= attempts;
      if (!(error instanceof PermanentSendError) && (!last || isStoreAway(error))) {
        const next = last ? attempt : attempt + 1;
        return this.retry(entryId, { id, data, attempt: next }, backoffDelay(attempt, backoffMs));
      }
      const failedReason = error instanceof Error ? error.message : String(error);
      return this.settle(entryId, id, { failedReason, attempt, data }, retainFailedMs);
    }
    return this.settle(entryId, id, "done", retainCompletedMs);
  }

  private async retry(entryId: string, next: { id: string; data: string; attempt: number }, delayMs: number) {
    const { stream, delayed } = this.keys;
    try {
      await this.client.rsdQueueRetry(stream, delayed, this.settings.group, entryId, delayMs, JSON.stringify(next));
      this.wakePromote(delayMs);
    } catch (error) {
      // The entry stays pending here and is taken over once its lock lapses: the attempt runs again.
      this.failed(error);
    }
  }

  /**
   * Settlements of one event-loop turn go in one script. A failed settlement leaves the entry pending: it is taken
   * over once its lock lapses and runs again (the reply ledger keeps that single).
   */
  private settle(entryId: string, id: string, outcome: "done" | object, ttlMs: number): Promise<void> {
    const mark = outcome === "done" ? "done" : JSON.stringify({ failed: outcome });
    return new Promise((done) => {
      if (this.settlements.push({ entryId, id, mark, ttlMs, done }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.settlements;
    this.settlements = [];
    const keys = [this.keys.stream, ...batch.map((s) => this.keys.mark(s.id))];
    const args = batch.flatMap((s) => [s.entryId, s.mark, s.ttlMs]);
    try {
      await this.client.rsdQueueSettle(keys.length, ...keys, this.settings.group, ...args);
    } catch (error) {
      this.failed(error);
    }
    for (const s of batch) s.done();
  }

  private async renew(): Promise<number> {
    const held = [...this.inHand.keys()];
    if (held.length > 0) await this.client.rsdQueueRenew(this.keys.stream, this.settings.group, this.name, ...held);
    return this.settings.lockMs / 2;
  }

  private async reclaim(): Promise<number> {
    const free = this.settings.concurrency - this.inHand.size;
    if (free <= 0) this.takeoverOwed = true;
    else if (this.groupReady && !this.takeover && this.settings.takingJobs()) {
      this.takeoverOwed = false;
      this.takeover = this.takeOver(free);
      try {
        this.takeoverOwed = await this.takeover;
      } finally {
        this.takeover = undefined;
      }
    }
    return this.settings.stalledIntervalMs;
  }

  /**
   * Takes over at most `free` entries idle for longer than a lock. Whether more may be waiting: it filled every slot,
   * or XAUTOCLAIM's scan (at most ten entries per slot asked for) has not come round to the start yet.
   */
  private async takeOver(free: number): Promise<boolean> {
    const { stream } = this.keys;
    const { group, lockMs } = this.settings;
    const [cursor, claimed] = (await this.client.xautoclaim(
      stream,
      group,
      this.name,
      lockMs,
      this.cursor,
      "COUNT",
      free,
    )) as [string, Entry[]];
    this.cursor = cursor;
    // A Redis frozen for longer than a lock makes the entries in hand look stalled too: they are still in hand.
    const taken = claimed.filter(([entryId]) => !this.inHand.has(entryId));
    const deliveries = await this.deliveries(taken);
    for (const entry of taken) {
      this.take(entry, (deliveries.get(entry[0]) ?? 0) - 1 > this.settings.maxStalledCount);
    }
    return claimed.length === free || cursor !== "0-0";
  }

  /** How often each entry was delivered (taken over included): one XPENDING over their range. */
  private async deliveries(entries: Entry[]): Promise<Map<string, number>> {
    const first = entries[0]?.[0];
    const last = entries.at(-1)?.[0];
    if (!first || !last) return new Map();
    const count = this.inHand.size + entries.length + this.settings.concurrency;
    const pending = (await this.client.xpending(
      this.keys.stream,
      this.settings.group,
      first,
      last,
      count,
      this.name,
    )) as [string, string, number, number][];
    return new Map(pending.map(([entryId, , , delivered]) => [entryId, delivered]));
  }

  /** Deletes the names of consumers gone for good (their instances restarted) from the group. */
  private async forget(): Promise<number> {
    const { group, forgetConsumersAfterMs } = this.settings;
    if (this.groupReady) await this.client.rsdQueueForget(this.keys.stream, group, forgetConsumersAfterMs, this.name);
    return forgetConsumersAfterMs;
  }

  private async promote(): Promise<number> {
    const next = await this.client.rsdQueuePromote(this.keys.stream, this.keys.delayed, 100);
    return next < 0 ? promotePollMs : Math.min(next, promotePollMs);
  }

  /** Runs `task` again and again, never two at once, waiting the ms it returns between runs, until stopped. */
  private repeat(task: () => Promise<number>, firstInMs: number) {
    let timer: NodeJS.Timeout | undefined;
    let dueAt = Number.POSITIVE_INFINITY;
    let running = false;
    let wokenWithin = Number.POSITIVE_INFINITY;
    let stopped = false;
    const schedule = (ms: number) => {
      if (stopped || Date.now() + ms >= dueAt) return;
      clearTimeout(timer);
      dueAt = Date.now() + ms;
      timer = setTimeout(() => void run(), ms);
      timer.unref();
    };
    const run = async () => {
      dueAt = Number.POSITIVE_INFINITY;
      running = true;
      let next = pauseAfterErrorMs;
      try {
        next = await task();
      } catch (error) {
        this.failed(error);
      }
      running = false;
      schedule(Math.min(next, wokenWithin));
      wokenWithin = Number.POSITIVE_INFINITY;
    };
    schedule(firstInMs);
    return {
      wake(withinMs: number) {
        if (running) wokenWithin = Math.min(wokenWithin, withinMs);
        else schedule(withinMs);
      },
      stop() {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }

  private failed(error: unknown): void {
    if (error instanceof Error && error.message.startsWith("NOGROUP")) this.groupReady = false;
    this.settings.onError(error instanceof Error ? error : new Error(String(error)));
  }

  /**
   * Stops taking jobs and waits for the ones in hand — those a read or takeover under way still hands over too — still
   * renewing their locks. While Redis is away their settlements cannot land, so it returns at once, or stops waiting
   * once the connection drops: the jobs in hand keep their pending entries, which are taken over once their locks
   * lapse.
   */
  private async shutdown(): Promise<void> {
    this.stopped = true;
    for (const stop of this.stops) stop();
    this.slotFreed();
    // Ends the read connection gracefully: a reply already on its way still arrives, and its entries (delivered to
    // this consumer) are run here like those in hand, rather than left to lapse and run again elsewhere.
    this.reader.disconnect();
    try {
      if (this.client.status !== "ready") return;
      let dropped = () => {};
      const connectionDropped = new Promise<void>((resolve) => {
        dropped = resolve;
        this.client.once("close", resolve);
      });
      const handedOver = Promise.allSettled([this.reading, this.takeover]);
      await Promise.race([handedOver.then(() => Promise.allSettled([...this.inHand.values()])), connectionDropped]);
      this.client.off("close", dropped);
    } finally {
      this.stopRenewing();
    }
  }
}
