import { describe, expect, it } from "vitest";
import type { QueuedEvent } from "../src/chat-event.ts";
import { StoreUnavailableError } from "../src/errors.ts";
import { EventGate } from "../src/event-gate.ts";
import { Ingest } from "../src/ingest.ts";
import { admissionKey } from "../src/keys.ts";
import type { Lane } from "../src/lane-admission.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { MemoryQueue } from "../src/memory/job-queue.ts";
import type { ClaimStore } from "../src/ports/claim-store.ts";
import type { JobQueue } from "../src/ports/job-queue.ts";
import { unusedFeedback } from "./feedback-support.ts";
import {
  CountingTelemetry,
  delivery,
  directoryOf,
  quietLogger,
  UnitPlatform,
  unreachableStore,
  workspace,
} from "./pipeline-support.ts";

const leaseMs = 30_000;

/** A queue that holds each enqueue until `release()`, or refuses the next ones. */
class GatedQueue implements JobQueue<QueuedEvent> {
  readonly inner = new MemoryQueue<QueuedEvent>();
  failures = 0;
  calls = 0;
  private gate?: Promise<void>;
  private open?: () => void;

  hold(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }
  release(): void {
    this.open?.();
    this.gate = undefined;
  }
  async enqueue(id: string, data: QueuedEvent): Promise<void> {
    this.calls++;
    await this.gate;
    if (this.failures > 0) {
      this.failures--;
      throw new StoreUnavailableError("queue down");
    }
    return this.inner.enqueue(id, data);
  }
  consume = this.inner.consume.bind(this.inner);
  depth = () => this.inner.depth();
}

function setUp(options: { sharedStore?: ClaimStore } = {}) {
  const open = workspace("ws-open", { failMode: "open" });
  const closed = workspace("ws-closed", { failMode: "closed" });
  const telemetry = new CountingTelemetry();
  const sharedQueue = new GatedQueue();
  const localQueue = new MemoryQueue<QueuedEvent>();
  const lane = (store: ClaimStore, queue: JobQueue<QueuedEvent>): Lane => ({
    gate: new EventGate(store, "instance-1", leaseMs),
    queue,
  });
  const ingest = new Ingest({
    directory: directoryOf(open, closed),
    adapters: new Map([["unit", new UnitPlatform()]]),
    shared: lane(options.sharedStore ?? new MemoryClaimStore(), sharedQueue),
    local: lane(new MemoryClaimStore(), localQueue),
    feedback: unusedFeedback(),
    telemetry,
    logger: quietLogger,
  });
  return { ingest, telemetry, sharedQueue, localQueue };
}

describe("Ingest", () => {
  it("queues a delivery once: its redelivery is acknowledged as a duplicate", async () => {
    const { ingest, sharedQueue, telemetry } = setUp();
    const first = await ingest.handle("unit", "ws-closed", delivery("e1", "m1"));
    const again = await ingest.handle("unit", "ws-closed", delivery("e1", "m1"));
    expect(first).toEqual({ status: 200, body: { ok: true } });
    expect(again).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(await sharedQueue.depth()).toBe(1);
    expect(telemetry.counts).toMatchObject({ deliveryReceived: 2, eventDuplicate: 1, acked: 2 });
  });

  it("queues a message once though its twin carries another event id: one job, the twin acked as a duplicate", async () => {
    const { ingest, sharedQueue, telemetry } = setUp();
    expect(await ingest.handle("unit", "ws-closed", delivery("e1", "m1"))).toEqual({ status: 200, body: { ok: true } });
    expect(await ingest.handle("unit", "ws-closed", delivery("e2", "m1"))).toEqual({
      status: 200,
      body: { ok: true, duplicate: true },
    });
    expect(await sharedQueue.depth()).toBe(1);
    expect(telemetry.counts).toMatchObject({ eventDuplicate: 1 });
  });

  it("answers 401, 400 and 404 and queues nothing", async () => {
    const { ingest, sharedQueue } = setUp();
    expect((await ingest.handle("unit", "ws-closed", delivery("e1", "m1", { signed: false }))).status).toBe(401);
    expect((await ingest.handle("unit", "ws-closed", delivery("e1", "m1", { body: "{nope" }))).status).toBe(400);
    expect((await ingest.handle("unit", "ws-unknown", delivery("e1", "m1"))).status).toBe(404);
    expect((await ingest.handle("other", "ws-closed", delivery("e1", "m1"))).status).toBe(404);
    expect(await sharedQueue.depth()).toBe(0);
  });

  it("fails closed while the shared store is unreachable: 503 with Retry-After, nothing queued anywhere", async () => {
    const { ingest, sharedQueue, localQueue, telemetry } = setUp({ sharedStore: unreachableStore });
    const response = await ingest.handle("unit", "ws-closed", delivery("e1", "m1"));
    expect(response).toMatchObject({ status: 503, headers: { "retry-after": "5" } });
    expect(await sharedQueue.depth()).toBe(0);
    expect(await localQueue.depth()).toBe(0);
    expect(telemetry.counts.failOpenPass).toBeUndefined();
  });

  it("fails open while the shared store is unreachable: queued on the local lane, deduplicated there", async () => {
    const { ingest, sharedQueue, localQueue, telemetry } = setUp({ sharedStore: unreachableStore });
    expect((await ingest.handle("unit", "ws-open", delivery("e1", "m1"))).status).toBe(200);
    expect(await ingest.handle("unit", "ws-open", delivery("e1", "m1"))).toMatchObject({
      body: { duplicate: true },
    });
    expect(await localQueue.depth()).toBe(1);
    expect(await sharedQueue.depth()).toBe(0);
    expect(telemetry.counts.failOpenPass).toBe(2);
  });

  it("acknowledges a concurrent copy only once the first is queued", async () => {
    const { ingest, sharedQueue } = setUp();
    sharedQueue.hold();
    const first = ingest.handle("unit", "ws-closed", delivery("e1", "m1"));
    const copy = ingest.handle("unit", "ws-closed", delivery("e1", "m1"));
    let copyAnswered = false;
    void copy.then(() => {
      copyAnswered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(copyAnswered).toBe(false);
    sharedQueue.release();
    expect((await first).status).toBe(200);
    expect(await copy).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(await sharedQueue.depth()).toBe(1);
  });

  it("has a copy that reaches the instance queuing the first wait on that enqueue, queuing nothing itself", async () => {
    const { ingest, sharedQueue } = setUp();
    sharedQueue.hold();
    const first = ingest.handle("unit", "ws-closed", delivery("e1", "m1"));
    const copies = [1, 2, 3].map(() => ingest.handle("unit", "ws-closed", delivery("e1", "m1")));
    await new Promise((resolve) => setTimeout(resolve, 50));
    sharedQueue.release();
    expect((await first).status).toBe(200);
    for (const copy of await Promise.all(copies))
      expect(copy).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(sharedQueue.calls).toBe(1);
    expect(await sharedQueue.depth()).toBe(1);
  });

  it("has a copy queue the job itself when the enqueue it waited on failed", async () => {
    const { ingest, sharedQueue } = setUp();
    sharedQueue.hold();
    sharedQueue.failures = 1;
    const first = ingest.handle("unit", "ws-closed", delivery("e1", "m1"));
    const copy = ingest.handle("unit", "ws-closed", delivery("e1", "m1"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    sharedQueue.release();
    expect((await first).status).toBe(503);
    expect(await copy).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(sharedQueue.calls).toBe(2);
    expect(await sharedQueue.depth()).toBe(1);
  });

  it("queues a copy itself, under the same id, when the first's instance died before queueing it", async () => {
    const store = new MemoryClaimStore();
    const { ingest, sharedQueue } = setUp({ sharedStore: store });
    await store.claim(
      admissionKey({ workspaceId: "ws-closed", eventId: "e1", messageKey: "m1" }),
      "an instance that died",
      leaseMs,
    );
    expect(await ingest.handle("unit", "ws-closed", delivery("e1", "m1"))).toMatchObject({ status: 200 });
    expect(await ingest.handle("unit", "ws-closed", delivery("e1", "m1"))).toMatchObject({ status: 200 });
    expect(await sharedQueue.depth()).toBe(1);
  });

  it("gives the claim back when the enqueue fails, so the platform's retry is queued", async () => {
    const { ingest, sharedQueue } = setUp();
    sharedQueue.failures = 1;
    expect((await ingest.handle("unit", "ws-closed", delivery("e1", "m1"))).status).toBe(503);
    expect(await sharedQueue.depth()).toBe(0);
    expect(await ingest.handle("unit", "ws-closed", delivery("e1", "m1"))).toEqual({ status: 200, body: { ok: true } });
    expect(await sharedQueue.depth()).toBe(1);
  });
});
