import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import {
  type ConsumeOptions,
  type Consumer,
  DatabaseUnavailableError,
  PermanentSendError,
  StoreUnavailableError,
} from "@resident/core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { connectRedis, type RedisClient, RedisQueue, type RedisQueueOptions } from "../../src/index.ts";

interface Seen {
  id: string;
  attempt: number;
  data: unknown;
}

/**
 * What RedisQueue promises (core's JobQueue port, and taking over the jobs of a consumer that stopped), against the
 * Redis at `url()`: standalone or Cluster.
 */
export function queueContract(backend: string, url: () => string): void {
  describe(`RedisQueue on ${backend}`, () => {
    let producer: RedisClient;
    let worker: RedisClient;
    const open: { close(): Promise<void> }[] = [];

    beforeAll(() => {
      producer = connectRedis(url(), "producer");
      worker = connectRedis(url(), "worker");
    });
    afterEach(async () => {
      await Promise.all(open.splice(0).map((closable) => closable.close()));
    });
    afterAll(() => Promise.all([producer.quit(), worker.quit()]));

    /** A queue of its own per test, fast retries, and a handler that records every run. */
    async function queueWith(options: Partial<RedisQueueOptions> = {}) {
      const name = options.name ?? `q-${randomUUID()}`;
      const queue = new RedisQueue<{ n: number }>({ producer, worker, name, backoffMs: 20, ...options });
      await vi.waitFor(() => queue.depth(), { timeout: 10_000 });
      const seen: Seen[] = [];
      const consume = (handler: (job: Seen) => unknown = () => {}, options?: ConsumeOptions): Consumer => {
        const consumer = queue.consume(async (job) => {
          seen.push({ id: job.id, attempt: job.attempt, data: job.data });
          await handler(job);
        }, options);
        open.unshift(consumer);
        return consumer;
      };
      return { queue, seen, consume, stream: `{rsd}:${name}:stream` };
    }

    it("runs each job once and hands the handler its original id, whatever characters it has", async () => {
      const { queue, seen, consume } = await queueWith();
      const ids = ["event:T01:1712345.000100", "reply:ws:room:msg%3A", "123", "-7", "%41"];
      for (const [n, id] of ids.entries()) await queue.enqueue(id, { n });
      consume();
      await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
      expect(seen.map((job) => job.id).sort()).toEqual([...ids].sort());
      expect(seen.every((job) => job.attempt === 1)).toBe(true);
    });

    it("adds a known id only once: while it waits and after it completed", async () => {
      const { queue, seen, consume } = await queueWith();
      await queue.enqueue("event:ws:dup", { n: 1 });
      await queue.enqueue("event:ws:dup", { n: 2 });
      expect(await queue.depth()).toBe(1);
      consume();
      await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
      await queue.enqueue("event:ws:dup", { n: 3 });
      expect(await queue.depth()).toBe(0);
      expect(seen).toEqual([{ id: "event:ws:dup", attempt: 1, data: { n: 1 } }]);
    });

    it("adds a job marked probably stored when it is missing, and leaves a stored one alone", async () => {
      const { queue, seen, consume } = await queueWith();
      await queue.enqueue("event:ws:copy", { n: 1 }, { probablyStored: true });
      await queue.enqueue("event:ws:copy", { n: 2 }, { probablyStored: true });
      await queue.enqueue("event:ws:copy", { n: 3 });
      expect(await queue.depth()).toBe(1);
      consume();
      await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
      await queue.enqueue("event:ws:copy", { n: 4 }, { probablyStored: true });
      expect(await queue.depth()).toBe(0);
      expect(seen).toEqual([{ id: "event:ws:copy", attempt: 1, data: { n: 1 } }]);
    });

    it("counts waiting, delayed and running jobs in its depth", async () => {
      const { queue, seen, consume } = await queueWith({ backoffMs: 60_000 });
      await queue.enqueue("a", { n: 1 });
      await queue.enqueue("b", { n: 2 });
      expect(await queue.depth()).toBe(2);
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      consume((job) => {
        if (job.id === "a") throw new Error("retry me in a minute");
        return held;
      });
      // "a" waits out its backoff as a delayed job while "b" runs.
      await vi.waitFor(() => expect(seen).toHaveLength(2));
      expect(await queue.depth()).toBe(2);
      release();
      await vi.waitFor(async () => expect(await queue.depth()).toBe(1));
    });

    it("retries a failing handler with a rising attempt number until it succeeds", async () => {
      const { queue, seen, consume } = await queueWith();
      await queue.enqueue("event:ws:flaky", { n: 1 });
      consume((job) => {
        if (job.attempt < 3) throw new Error(`attempt ${job.attempt} fails`);
      });
      await vi.waitFor(() => expect(seen).toHaveLength(3));
      await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
      expect(seen.map((job) => job.attempt)).toEqual([1, 2, 3]);
    });

    it("gives up after its attempts are used up", async () => {
      const { queue, seen, consume } = await queueWith({ attempts: 3 });
      await queue.enqueue("event:ws:doomed", { n: 1 });
      consume(() => {
        throw new Error("always fails");
      });
      await vi.waitFor(() => expect(seen).toHaveLength(3));
      await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
      expect(seen.map((job) => job.attempt)).toEqual([1, 2, 3]);
    });

    it("retries a job whose store is away past its attempts, as its last attempt, until it succeeds", async () => {
      const { queue, seen, consume } = await queueWith({ attempts: 2 });
      await queue.enqueue("event:ws:outage", { n: 1 });
      consume(() => {
        if (seen.length <= 2) throw new DatabaseUnavailableError("PostgreSQL is away");
        if (seen.length <= 4) throw new StoreUnavailableError("Redis is away");
      });
      await vi.waitFor(() => expect(seen).toHaveLength(5));
      await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
      expect(seen.map((job) => job.attempt)).toEqual([1, 2, 2, 2, 2]);
    });

    it("ends a job retried past its attempts once it fails for a reason of its own", async () => {
      const { queue, seen, consume } = await queueWith({ attempts: 2 });
      await queue.enqueue("event:ws:outage-then-own", { n: 1 });
      consume(() => {
        throw seen.length <= 3 ? new DatabaseUnavailableError("PostgreSQL is away") : new Error("its own failure");
      });
      await vi.waitFor(() => expect(seen).toHaveLength(4));
      await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(seen.map((job) => job.attempt)).toEqual([1, 2, 2, 2]);
    });

    it("takes no new job, nor a dead consumer's, while it says it takes none, and takes them once it does again", async () => {
      const { queue, seen, consume, stream } = await queueWith({ lockDurationMs: 300, stalledIntervalMs: 100 });
      // An entry delivered to a consumer that died with it: its lock lapses while the live consumer takes nothing.
      await queue.enqueue("event:ws:orphaned", { n: 1 });
      await worker.xgroup("CREATE", stream, "workers", "0", "MKSTREAM").catch(() => {});
      await worker.xreadgroup("GROUP", "workers", "dead", "COUNT", 1, "STREAMS", stream, ">");
      let taking = false;
      consume(() => {}, { takingJobs: () => taking });
      await queue.enqueue("event:ws:fresh", { n: 2 });
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(seen).toEqual([]);
      taking = true;
      await vi.waitFor(() => expect(seen.map((job) => job.id).sort()).toEqual(["event:ws:fresh", "event:ws:orphaned"]));
    });

    it("ends a job refused for good at once, with none of its remaining attempts", async () => {
      const { queue, seen, consume } = await queueWith({ attempts: 5 });
      await queue.enqueue("event:ws:refused", { n: 1 });
      consume(() => {
        throw new PermanentSendError("not_in_channel");
      });
      await vi.waitFor(() => expect(seen).toHaveLength(1));
      await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).toHaveLength(1);
    });

    for (const signal of ["SIGKILL", "SIGSTOP"] as const) {
      it(`hands a job whose worker process got ${signal} mid-job to another consumer`, async () => {
        const name = `q-${randomUUID()}`;
        const { queue, seen, consume } = await queueWith({ name, lockDurationMs: 1000, stalledIntervalMs: 300 });
        await queue.enqueue("event:ws:orphan", { n: 42 });

        const script = fileURLToPath(new URL("./stalling-consumer.ts", import.meta.url));
        const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", script, url(), name], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        const exited = once(child, "exit");
        let output = "";
        child.stdout.on("data", (chunk) => {
          output += chunk;
        });
        try {
          await vi.waitFor(() => expect(output).toContain("started event:ws:orphan"), { timeout: 20_000 });
          child.kill(signal);
          consume();
          await vi.waitFor(() => expect(seen).toEqual([{ id: "event:ws:orphan", attempt: 1, data: { n: 42 } }]), {
            timeout: 20_000,
          });
          await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
        } finally {
          child.kill("SIGKILL");
          await exited;
        }
      });
    }

    it("keeps a running job's lock while its handler runs longer than the lock", async () => {
      const { queue, seen, consume } = await queueWith({ lockDurationMs: 600, stalledIntervalMs: 100 });
      await queue.enqueue("event:ws:long", { n: 1 });
      consume(() => new Promise((resolve) => setTimeout(resolve, 2_000)));
      consume();
      await vi.waitFor(async () => expect(await queue.depth()).toBe(0), { timeout: 10_000 });
      expect(seen).toEqual([{ id: "event:ws:long", attempt: 1, data: { n: 1 } }]);
    });

    it("takes over an entry delivered to a live consumer whose read reply never reached it", async () => {
      const { queue, seen, consume, stream } = await queueWith({
        lockDurationMs: 600,
        stalledIntervalMs: 100,
        concurrency: 1,
      });
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await queue.enqueue("event:ws:first", { n: 1 });
      consume((job) => (job.id === "event:ws:first" ? held : undefined));
      await vi.waitFor(() => expect(seen).toHaveLength(1));
      // Its only slot is taken, so it reads nothing now: read for it, as a reply lost on the way would have.
      const [consumer] = (await worker.xinfo("CONSUMERS", stream, "workers")) as string[][];
      await queue.enqueue("event:ws:lost", { n: 2 });
      await worker.xreadgroup("GROUP", "workers", consumer?.[1] ?? "", "COUNT", 1, "STREAMS", stream, ">");
      release();
      await vi.waitFor(() => expect(seen.map((job) => job.id)).toEqual(["event:ws:first", "event:ws:lost"]), {
        timeout: 10_000,
      });
      await vi.waitFor(async () => expect(await queue.depth()).toBe(0));
    });

    it("creates its group again when Redis lost it, and reads the entries added meanwhile", async () => {
      const { queue, seen, consume, stream } = await queueWith();
      await queue.enqueue("event:ws:before", { n: 1 });
      consume();
      await vi.waitFor(() => expect(seen).toHaveLength(1));
      await worker.del(stream);
      await queue.enqueue("event:ws:after", { n: 2 });
      await vi.waitFor(() => expect(seen.map((job) => job.id)).toEqual(["event:ws:before", "event:ws:after"]), {
        timeout: 15_000,
      });
    });

    it("waits for the jobs in hand when a consumer closes", async () => {
      const { queue } = await queueWith();
      let finished = false;
      let started = false;
      const consumer = queue.consume(async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 200));
        finished = true;
      });
      open.push(consumer);
      await queue.enqueue("event:ws:slow", { n: 1 });
      await vi.waitFor(() => expect(started).toBe(true));
      await consumer.close();
      expect(finished).toBe(true);
    });

    it("runs and waits for the entries a read already on its way hands over as the consumer closes", async () => {
      // A read's reply can land after close() began: its entries must not start unawaited, or an instance exits
      // mid-answer on a graceful stop. Jobs keep arriving, so replies are on their way at each close; a job started
      // after close() began runs longest, so close() returning before it ends shows.
      const late: string[] = [];
      for (let round = 0; round < 10; round++) {
        // Slots to spare, so that a read is always out.
        const { queue } = await queueWith({ concurrency: 1_000 });
        const running = new Set<string>();
        let closing = false;
        const consumer = queue.consume(async (job) => {
          running.add(job.id);
          if (closing) late.push(job.id);
          await new Promise((resolve) => setTimeout(resolve, closing ? 150 : 30));
          running.delete(job.id);
        });
        let adding = true;
        const producing = (async () => {
          for (let n = 0; adding; n++) await queue.enqueue(`event:ws:${round}:${n}`, { n });
        })();
        await new Promise((resolve) => setTimeout(resolve, 50 + round * 7));
        // From an enqueue's continuation, as a shutdown runs from other I/O's: the read's reply lands alongside.
        await queue.enqueue(`event:ws:${round}:last`, { n: -1 });
        closing = true;
        await consumer.close();
        const unfinished = [...running];
        adding = false;
        await producing;
        expect(unfinished, `round ${round}: handlers still running when close() returned`).toEqual([]);
      }
      expect(late.length, "jobs handed over after close() began (else the race was never run)").toBeGreaterThan(0);
    });
  });
}
