import { describe, expect, it } from "vitest";
import type { QueuedEvent } from "../src/chat-event.ts";
import { StoreUnavailableError } from "../src/errors.ts";
import { EventGate } from "../src/event-gate.ts";
import { Ingest } from "../src/ingest.ts";
import { admissionKey } from "../src/keys.ts";
import type { Lane } from "../src/lane-admission.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { MemoryQueue } from "../src/memory/job-queue.ts";
import { MemoryQueuedAdmission } from "../src/memory/queued-admission.ts";
import type { ClaimResult } from "../src/ports/claim-store.ts";
import type { QueuedAdmission } from "../src/ports/queued-admission.ts";
import { unusedFeedback } from "./feedback-support.ts";
import { CountingTelemetry, delivery, directoryOf, quietLogger, UnitPlatform, workspace } from "./pipeline-support.ts";

const leaseMs = 30_000;
const ttlSeconds = 3_600;

/** The memory claim store, counting the gate's calls of the two-step path. */
class CountingClaims extends MemoryClaimStore {
  claimCalls = 0;
  settleCalls = 0;
  override claim(key: string, owner: string, lease: number, readJournals?: readonly string[]): Promise<ClaimResult> {
    this.claimCalls++;
    return super.claim(key, owner, lease, readJournals);
  }
  override settle(key: string, value: string, ttlMs: number): Promise<boolean> {
    this.settleCalls++;
    return super.settle(key, value, ttlMs);
  }
}

/** The memory queue, counting every enqueue: the one-step admission's and the lane's own. */
class CountingQueue extends MemoryQueue<QueuedEvent> {
  enqueues = 0;
  override enqueue(id: string, data: QueuedEvent): Promise<void> {
    this.enqueues++;
    return super.enqueue(id, data);
  }
}

/** The memory admission, counting its calls. */
class CountingAdmission extends MemoryQueuedAdmission<QueuedEvent> {
  calls = 0;
  override admit(key: string, data: QueuedEvent, value: string, ttlMs: number) {
    this.calls++;
    return super.admit(key, data, value, ttlMs);
  }
}

const down: QueuedAdmission<QueuedEvent> = {
  admit: () => Promise.reject(new StoreUnavailableError("store down")),
};

function setUp(options: { admission?: "down"; now?: () => number } = {}) {
  const claims = new CountingClaims({ now: options.now });
  const queue = new CountingQueue();
  const admission = new CountingAdmission(claims, queue);
  const standbyQueue = new MemoryQueue<QueuedEvent>();
  const telemetry = new CountingTelemetry();
  const shared: Lane = {
    gate: new EventGate(claims, "instance-1", leaseMs),
    queue,
    admission: options.admission === "down" ? down : admission,
  };
  const ingest = new Ingest({
    directory: directoryOf(workspace("ws-closed", { failMode: "closed", eventTtlSeconds: ttlSeconds })),
    adapters: new Map([["unit", new UnitPlatform()]]),
    shared,
    standby: { gate: new EventGate(new MemoryClaimStore(), "instance-1", leaseMs), queue: standbyQueue },
    local: { gate: new EventGate(new MemoryClaimStore(), "instance-1", leaseMs), queue: new MemoryQueue() },
    feedback: unusedFeedback(),
    telemetry,
    logger: quietLogger,
  });
  const deliver = (eventId: string, messageKey = "m1") =>
    ingest.handle("unit", "ws-closed", delivery(eventId, messageKey));
  const key = admissionKey({ workspaceId: "ws-closed", eventId: "e1", messageKey: "m1" });
  return { claims, queue, admission, standbyQueue, telemetry, deliver, key };
}

describe("Ingest on a lane that admits in one step", () => {
  it("takes a delivery in with the one step alone: no claim, no enqueue of its own, no mark after the ack", async () => {
    const { claims, queue, admission, deliver, key } = setUp();
    expect(await deliver("e1")).toEqual({ status: 200, body: { ok: true } });
    expect(admission.calls).toBe(1);
    expect([claims.claimCalls, claims.settleCalls, queue.enqueues]).toEqual([0, 0, 1]);
    expect(await queue.depth()).toBe(1);
    // The gate's key is the long-lived queued record at once: never in progress.
    expect(await claims.claim(key, "a later look", leaseMs)).toEqual({
      claimed: false,
      record: { state: "done", value: "queued" },
    });
  });

  it("acknowledges a redelivery and a twin as duplicates with one step each, queuing nothing", async () => {
    const { claims, queue, admission, telemetry, deliver } = setUp();
    await deliver("e1");
    expect(await deliver("e1")).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(await deliver("e2")).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(admission.calls).toBe(3);
    expect([claims.claimCalls, queue.enqueues]).toEqual([0, 1]);
    expect(await queue.depth()).toBe(1);
    expect(telemetry.counts).toMatchObject({ deliveryReceived: 3, eventDuplicate: 2 });
  });

  it("admits concurrent copies once, each copy acked as a duplicate without queuing anything itself", async () => {
    const { queue, deliver } = setUp();
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => deliver("e1")));
    expect(answers.filter((answer) => (answer.body as { duplicate?: boolean }).duplicate === true)).toHaveLength(4);
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect([queue.enqueues, await queue.depth()]).toEqual([1, 1]);
  });

  it("queues, under the same id, a delivery whose claim an instance on the two-step path still holds", async () => {
    const { claims, queue, admission, deliver, key } = setUp();
    await claims.claim(key, "an instance between claim and enqueue", leaseMs);
    expect(await deliver("e1")).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(await deliver("e1")).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(admission.calls).toBe(2);
    // Each copy queued it under the same id, which the queue added once.
    expect([queue.enqueues, await queue.depth()]).toEqual([2, 1]);
  });

  it("keeps the gate's record for the workspace's event TTL", async () => {
    let now = 0;
    const { queue, deliver } = setUp({ now: () => now });
    await deliver("e1");
    now = ttlSeconds * 1000 - 1;
    expect(await deliver("e1")).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    now = ttlSeconds * 1000 + 1;
    // Admitted again, and the queue, which still knows the job's id, adds nothing.
    expect(await deliver("e1")).toEqual({ status: 200, body: { ok: true } });
    expect(await queue.depth()).toBe(1);
  });

  it("falls over to the standby lane while the one step cannot reach its store", async () => {
    const { queue, standbyQueue, deliver } = setUp({ admission: "down" });
    expect(await deliver("e1")).toEqual({ status: 200, body: { ok: true } });
    expect(await deliver("e1")).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect([await queue.depth(), await standbyQueue.depth()]).toEqual([0, 1]);
  });
});
