import { setTimeout as sleep } from "node:timers/promises";
import type { ClaimStore, Job, JobQueue, QueuedAdmission } from "@resident/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fresh } from "./claim-contract.ts";

type Data = { n: number; text: string };

/** A claim store, a queue and the one-step admission over both, as a lane has them. */
export interface AdmissionBackend {
  claims: ClaimStore;
  /** A queue of its own, empty. */
  queue(): Promise<{ queue: JobQueue<Data>; admission: QueuedAdmission<Data> }>;
  close(): Promise<void>;
}

/**
 * What QueuedAdmission promises, on every backend that offers it (memory, Redis standalone): the gate's record and
 * the job in one atomic step, or the record that stands, and nothing changed.
 */
export function admissionContract(name: string, setup: () => Promise<AdmissionBackend>): void {
  describe(`${name}: one-step admission`, () => {
    let backend: AdmissionBackend;
    beforeAll(async () => {
      backend = await setup();
    });
    afterAll(() => backend?.close());

    /** Runs the queue's jobs, recording each. */
    function consumed(queue: JobQueue<Data>): { jobs: Job<Data>[]; close(): Promise<void> } {
      const jobs: Job<Data>[] = [];
      const consumer = queue.consume(async (job) => {
        jobs.push(job);
      });
      return { jobs, close: () => consumer.close() };
    }

    it("adds the job under the key's id, data verbatim, and keeps the key as the done record", async () => {
      const { queue, admission } = await backend.queue();
      const key = fresh("event");
      const data = { n: 1, text: 'line 1\n"quoted" ✓ d:i:' };
      expect(await admission.admit(key, data, "queued", 10_000)).toBeUndefined();
      expect(await backend.claims.claim(key, "a redelivery", 10_000)).toEqual({
        claimed: false,
        record: { state: "done", value: "queued" },
      });
      const run = consumed(queue);
      await vi.waitFor(() => expect(run.jobs).toHaveLength(1));
      await run.close();
      expect(run.jobs[0]).toMatchObject({ id: key, data, attempt: 1 });
    });

    it("changes nothing for a key that stands, and hands back its record: done or in progress", async () => {
      const { queue, admission } = await backend.queue();
      const doneKey = fresh("event");
      expect(await admission.admit(doneKey, { n: 1, text: "" }, "queued", 10_000)).toBeUndefined();
      expect(await admission.admit(doneKey, { n: 2, text: "" }, "other", 10_000)).toEqual({
        state: "done",
        value: "queued",
      });
      const heldKey = fresh("message");
      await backend.claims.claim(heldKey, "instance-2 ünïcode:owner", 10_000);
      expect(await admission.admit(heldKey, { n: 3, text: "" }, "queued", 10_000)).toEqual({
        state: "in_progress",
        owner: "instance-2 ünïcode:owner",
      });
      expect(await queue.depth()).toBe(1);
      expect(await backend.claims.claim(heldKey, "x", 10_000)).toMatchObject({ record: { state: "in_progress" } });
    });

    it("admits one of many concurrent copies, and the queue holds one job", async () => {
      const { queue, admission } = await backend.queue();
      const key = fresh("event");
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, n) => admission.admit(key, { n, text: "" }, "queued", 10_000)),
      );
      expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome?.state === "done")).toHaveLength(19);
      expect(await queue.depth()).toBe(1);
    });

    it("adds no second job for an id the queue knows, though the key had lapsed", async () => {
      const { queue, admission } = await backend.queue();
      const key = fresh("event");
      await queue.enqueue(key, { n: 1, text: "first" });
      expect(await admission.admit(key, { n: 2, text: "second" }, "queued", 10_000)).toBeUndefined();
      const run = consumed(queue);
      await vi.waitFor(() => expect(run.jobs).toHaveLength(1));
      await sleep(200);
      await run.close();
      expect(run.jobs.map((job) => job.data.text)).toEqual(["first"]);
      expect(await backend.claims.claim(key, "later", 10_000)).toMatchObject({ record: { state: "done" } });
    });

    it("keeps the record for its TTL only", async () => {
      const { admission } = await backend.queue();
      const key = fresh("event");
      expect(await admission.admit(key, { n: 1, text: "" }, "queued", 150)).toBeUndefined();
      await sleep(400);
      expect(await backend.claims.claim(key, "after the TTL", 10_000)).toMatchObject({ claimed: true });
    });
  });
}
