import { describe, expect, it } from "vitest";
import {
  type ClaimStore,
  DatabaseUnavailableError,
  EventGate,
  type FeedbackClick,
  FeedbackIntake,
  Ingest,
  type Lane,
  MemoryClaimStore,
  MemoryQueue,
  type PlatformAdapter,
  type QueuedEvent,
} from "../src/index.ts";
import { MemoryFeedbackLedger } from "./feedback-support.ts";
import { CountingTelemetry, directoryOf, quietLogger, unreachableStore, workspace } from "./pipeline-support.ts";

const ws = workspace("ws-1");
const click: FeedbackClick = {
  platform: "unit",
  tenantId: ws.tenantId,
  workspaceId: ws.id,
  messageId: "room:answer-1",
  userId: "u1",
  vote: "positive",
  clickId: "click-1",
  clickedAt: 1_700_000_000_000,
};
/** An adapter whose every delivery is one click: the ingest path, not the platform, is under test. */
const adapter = { platform: "unit", verify: async () => {}, normalize: () => ({ kind: "feedback", click }) };

function setUp(ledger = new MemoryFeedbackLedger(), gateStore: ClaimStore = new MemoryClaimStore()) {
  const lane = (): Lane => ({
    gate: new EventGate(gateStore, "instance-1", 10_000),
    queue: new MemoryQueue<QueuedEvent>(),
  });
  const shared = lane();
  const ingest = new Ingest({
    directory: directoryOf(ws),
    adapters: new Map([["unit", adapter as unknown as PlatformAdapter]]),
    shared,
    local: lane(),
    feedback: new FeedbackIntake([shared.gate], ledger),
    telemetry: new CountingTelemetry(),
    logger: quietLogger,
  });
  const deliver = () => ingest.handle("unit", ws.id, { rawBody: Buffer.from("{}"), headers: {}, query: {} });
  return { ledger, shared, deliver };
}

describe("Ingest: feedback clicks", () => {
  it("acknowledges a click 200 and its redelivery as a duplicate, queueing nothing", async () => {
    const { deliver, ledger, shared } = setUp();
    expect(await deliver()).toEqual({ status: 200, body: { ok: true } });
    expect(await deliver()).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(ledger.votes.size).toBe(1);
    expect(await shared.queue.depth()).toBe(0);
  });

  it("answers 503 with Retry-After while the database or every gate is away, and counts nothing", async () => {
    const ledger = new MemoryFeedbackLedger();
    ledger.record = () => Promise.reject(new DatabaseUnavailableError("PostgreSQL is unreachable"));
    const databaseAway = await setUp(ledger).deliver();
    expect(databaseAway).toMatchObject({ status: 503, headers: { "retry-after": "5" } });
    const gatesAway = setUp(new MemoryFeedbackLedger(), unreachableStore);
    expect(await gatesAway.deliver()).toMatchObject({ status: 503 });
    expect(gatesAway.ledger.votes.size).toBe(0);
  });
});
