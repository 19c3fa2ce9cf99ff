import { describe, expect, it, vi } from "vitest";
import { DatabaseUnavailableError, PermanentSendError, StoreUnavailableError } from "../src/errors.ts";
import { MemoryQueue } from "../src/memory/job-queue.ts";

const waiting = { timeout: 5_000, interval: 10 };

describe("MemoryQueue", () => {
  it("runs each job once and refuses a known id", async () => {
    const queue = new MemoryQueue<string>();
    const seen: string[] = [];
    const consumer = queue.consume(async (job) => {
      seen.push(job.data);
    });
    await Promise.all([queue.enqueue("a", "first"), queue.enqueue("a", "again"), queue.enqueue("b", "second")]);
    await vi.waitFor(() => expect(seen.length).toBe(2), waiting);
    await queue.enqueue("a", "after completion");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen.sort()).toEqual(["first", "second"]);
    await consumer.close();
  });

  it("retries a failing job with backoff, counting attempts, until it succeeds", async () => {
    const queue = new MemoryQueue<string>({ backoffMs: 20 });
    const attempts: number[] = [];
    const consumer = queue.consume(async (job) => {
      attempts.push(job.attempt);
      if (job.attempt < 3) throw new Error("not yet");
    });
    await queue.enqueue("j", "x");
    await vi.waitFor(() => expect(attempts.length).toBe(3), waiting);
    await vi.waitFor(async () => expect(await queue.depth()).toBe(0), waiting);
    expect(attempts).toEqual([1, 2, 3]);
    expect(await queue.depth()).toBe(0);
    await consumer.close();
  });

  it("gives up after its attempts", async () => {
    const queue = new MemoryQueue<string>({ attempts: 2, backoffMs: 10 });
    let runs = 0;
    const consumer = queue.consume(async () => {
      runs++;
      throw new Error("always");
    });
    await queue.enqueue("j", "x");
    await vi.waitFor(() => expect(runs).toBe(2), waiting);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(runs).toBe(2);
    expect(await queue.depth()).toBe(0);
    await consumer.close();
  });

  it("retries a job whose store is away past its attempts, as its last attempt, until it succeeds", async () => {
    const queue = new MemoryQueue<string>({ attempts: 2, backoffMs: 10 });
    const attempts: number[] = [];
    const consumer = queue.consume(async (job) => {
      attempts.push(job.attempt);
      if (attempts.length <= 2) throw new DatabaseUnavailableError("PostgreSQL is away");
      if (attempts.length <= 4) throw new StoreUnavailableError("Redis is away");
    });
    await queue.enqueue("j", "x");
    await vi.waitFor(async () => expect(await queue.depth()).toBe(0), waiting);
    expect(attempts).toEqual([1, 2, 2, 2, 2]);
    await consumer.close();
  });

  it("ends a job retried past its attempts once it fails for a reason of its own", async () => {
    const queue = new MemoryQueue<string>({ attempts: 2, backoffMs: 10 });
    const attempts: number[] = [];
    const consumer = queue.consume(async (job) => {
      attempts.push(job.attempt);
      if (attempts.length <= 3) throw new DatabaseUnavailableError("PostgreSQL is away");
      throw new Error("the job's own failure");
    });
    await queue.enqueue("j", "x");
    await vi.waitFor(() => expect(attempts).toHaveLength(4), waiting);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(attempts).toEqual([1, 2, 2, 2]);
    expect(await queue.depth()).toBe(0);
    await consumer.close();
  });

  it("takes no new job while its consumer says it takes none, and takes them once it does again", async () => {
    const queue = new MemoryQueue<string>();
    let taking = false;
    const seen: string[] = [];
    const consumer = queue.consume(
      async (job) => {
        seen.push(job.id);
      },
      { takingJobs: () => taking },
    );
    await queue.enqueue("waits", "x");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen).toEqual([]);
    taking = true;
    await vi.waitFor(() => expect(seen).toEqual(["waits"]), waiting);
    await consumer.close();
  });

  it("ends a job refused for good at once, with none of its remaining attempts", async () => {
    const queue = new MemoryQueue<string>({ attempts: 5, backoffMs: 10 });
    let runs = 0;
    const consumer = queue.consume(async () => {
      runs++;
      throw new PermanentSendError("not_in_channel");
    });
    await queue.enqueue("j", "x");
    await vi.waitFor(() => expect(runs).toBe(1), waiting);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(runs).toBe(1);
    expect(await queue.depth()).toBe(0);
    await consumer.close();
  });

  it("counts waiting and running jobs, and close waits for running ones", async () => {
    const queue = new MemoryQueue<string>({ concurrency: 1 });
    let finish = () => {};
    let finished = 0;
    const consumer = queue.consume(
      () =>
        new Promise<void>((resolve) => {
          finish = () => {
            finished++;
            resolve();
          };
        }),
    );
    await queue.enqueue("a", "x");
    await queue.enqueue("b", "y");
    expect(await queue.depth()).toBe(2);
    const closed = consumer.close();
    finish();
    await closed;
    expect(finished).toBe(1);
    expect(await queue.depth()).toBe(1);
  });
});
