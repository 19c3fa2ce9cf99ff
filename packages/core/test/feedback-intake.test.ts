import { describe, expect, it } from "vitest";
import {
  type ClaimStore,
  clickDeliveryId,
  EventGate,
  type FeedbackClick,
  FeedbackIntake,
  MemoryClaimStore,
  StoreUnavailableError,
} from "../src/index.ts";
import { MemoryFeedbackLedger } from "./feedback-support.ts";

const ttlMs = 60_000;
let clicks = 0;

function click(overrides: Partial<FeedbackClick> = {}): FeedbackClick {
  clicks++;
  return {
    platform: "slack",
    tenantId: "tn_1",
    workspaceId: "ws_1",
    messageId: "C1:1700000000.000100",
    userId: "U1",
    vote: "positive",
    clickId: `1700000100.${String(clicks).padStart(6, "0")}`,
    clickedAt: 1_700_000_100_000 + clicks,
    ...overrides,
  };
}

function setUp(gates = [new EventGate(new MemoryClaimStore(), "instance-a", 10_000)]) {
  const ledger = new MemoryFeedbackLedger();
  return { ledger, intake: new FeedbackIntake(gates, ledger), gate: gates[0] as EventGate };
}

/** A shared store that cannot be reached. */
const unreachable = {
  claim: () => Promise.reject(new StoreUnavailableError("redis down")),
} as unknown as ClaimStore;

describe("FeedbackIntake", () => {
  it("counts one click taken three times at once once: the other two are duplicates", async () => {
    const { intake, ledger } = setUp();
    const once = click();
    const outcomes = await Promise.all([1, 2, 3].map(() => intake.take(once, ttlMs)));
    expect(outcomes.sort()).toEqual(["counted", "duplicate", "duplicate"]);
    expect([...ledger.votes.values()]).toEqual([once]);
    // Once recorded, a redelivery stops at the gate: the ledger is not asked again.
    const writes = ledger.writes;
    expect(await intake.take(once, ttlMs)).toBe("duplicate");
    expect(ledger.writes).toBe(writes);
  });

  it("records a click whose claim is still held by a holder that died before writing; the ledger keeps it once", async () => {
    const { intake, ledger, gate } = setUp();
    const once = click();
    const held = await gate.admit({ workspaceId: once.workspaceId, eventId: clickDeliveryId(once) });
    expect(held.claimed).toBe(true);
    expect(await intake.take(once, ttlMs)).toBe("duplicate");
    expect(await intake.take(once, ttlMs)).toBe("duplicate");
    expect(ledger.writes).toBe(2);
    expect(ledger.votes.size).toBe(1);
  });

  it("keeps each person's latest vote: up then down is one vote down; an older click arriving late changes nothing", async () => {
    const { intake, ledger } = setUp();
    const up = click({ vote: "positive" });
    const down = click({ vote: "negative" });
    expect(await intake.take(down, ttlMs)).toBe("counted");
    expect(await intake.take(up, ttlMs)).toBe("unchanged");
    const upAgain = click({ vote: "positive" });
    expect(await intake.take(upAgain, ttlMs)).toBe("counted");
    expect([...ledger.votes.values()]).toEqual([upAgain]);
    expect(await intake.take(click({ userId: "U2", vote: "negative" }), ttlMs)).toBe("counted");
    const [today] = await ledger.daily("ws_1", 1, upAgain.clickedAt);
    expect(today).toMatchObject({ positive: 1, negative: 1 });
  });

  it("gives the claim back when the ledger cannot write, so the click counts when it comes again", async () => {
    const { intake, ledger } = setUp();
    const once = click();
    ledger.failing = true;
    await expect(intake.take(once, ttlMs)).rejects.toThrow("database refused");
    ledger.failing = false;
    expect(await intake.take(once, ttlMs)).toBe("counted");
    expect(ledger.votes.size).toBe(1);
  });

  it("goes through the standby gate while the shared store is away, and refuses when no gate answers", async () => {
    const standby = new EventGate(new MemoryClaimStore(), "instance-a", 10_000);
    const { intake, ledger } = setUp([new EventGate(unreachable, "instance-a", 10_000), standby]);
    const once = click();
    expect(await intake.take(once, ttlMs)).toBe("counted");
    expect(await intake.take(once, ttlMs)).toBe("duplicate");
    expect(ledger.writes).toBe(1);
    const alone = new FeedbackIntake([new EventGate(unreachable, "instance-a", 10_000)], ledger);
    await expect(alone.take(click(), ttlMs)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
