import { describe, expect, it } from "vitest";
import { LeaseLostError } from "../src/errors.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { ReplyLedger } from "../src/reply-ledger.ts";
import { chatEvent } from "./support.ts";

describe("ReplyLedger", () => {
  it("tells the first job to answer, a twin that it is answered elsewhere, a retry to wait", async () => {
    const ledger = new ReplyLedger(new MemoryClaimStore(), 30_000);
    const message = chatEvent();
    const twin = { ...message, eventId: "Ev-twin" };
    const first = await ledger.claim(message, "job-1");
    expect(first.outcome).toBe("claimed");
    expect(await ledger.claim(twin, "job-2")).toEqual({ outcome: "answering-elsewhere" });
    expect(await ledger.claim(message, "job-1")).toEqual({ outcome: "held-by-earlier-attempt" });
  });

  it("reports answered after the commit, and lets a retry claim after a release", async () => {
    const ledger = new ReplyLedger(new MemoryClaimStore(), 30_000);
    const sent = chatEvent();
    const failed = chatEvent();
    const a = await ledger.claim(sent, "job-a");
    const b = await ledger.claim(failed, "job-b");
    if (a.outcome !== "claimed" || b.outcome !== "claimed") throw new Error("expected claims");
    expect(await ledger.commit(sent, a.token, "1700000000.000100", 60_000)).toBe(true);
    expect(await ledger.release(failed, b.token)).toBe(true);
    expect(await ledger.claim(sent, "job-c")).toEqual({ outcome: "answered" });
    expect((await ledger.claim(failed, "job-b")).outcome).toBe("claimed");
  });

  it("hands the next holder the tool turn an earlier attempt kept, read with the claim, not read again", async () => {
    const store = new MemoryClaimStore();
    const ledger = new ReplyLedger(store, 30_000);
    const event = chatEvent();
    const first = await ledger.claim(event, "job-1");
    if (first.outcome !== "claimed") throw new Error("expected a claim");
    expect(first.firstStep).toBeUndefined();
    await ledger.toolJournal(event, 60_000, first.firstStep).keepStep(0, "turn with a tool call");
    await ledger.release(event, first.token);

    const next = await ledger.claim(event, "job-2");
    if (next.outcome !== "claimed") throw new Error("expected a claim");
    expect(next.firstStep).toBe("turn with a tool call");
    let reads = 0;
    const journaled = store.journaled.bind(store);
    store.journaled = (key) => {
      reads++;
      return journaled(key);
    };
    const journal = ledger.toolJournal(event, 60_000, next.firstStep);
    expect(await journal.step(0)).toBe("turn with a tool call");
    expect(reads).toBe(0);
    expect(await journal.step(1)).toBeUndefined();
    expect(reads).toBe(1);
  });

  it("refuses a commit or release from a stale owner after the claim passed on", async () => {
    let now = 0;
    const ledger = new ReplyLedger(new MemoryClaimStore({ now: () => now }), 1_000);
    const event = chatEvent();
    const stale = await ledger.claim(event, "job-1");
    now += 1_001;
    const fresh = await ledger.claim(event, "job-2");
    if (stale.outcome !== "claimed" || fresh.outcome !== "claimed") throw new Error("expected claims");
    expect(await ledger.commit(event, stale.token, "x", 60_000)).toBe(false);
    expect(await ledger.release(event, stale.token)).toBe(false);
    expect(await ledger.commit(event, fresh.token, "y", 60_000)).toBe(true);
  });

  it("holds the lease while work runs and aborts the work when the lease is lost", async () => {
    const store = new MemoryClaimStore();
    const ledger = new ReplyLedger(store, 300);
    const event = chatEvent();
    const claim = await ledger.claim(event, "job-1");
    if (claim.outcome !== "claimed") throw new Error("expected a claim");
    const lease = ledger.hold(event, claim.token);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(lease.signal.aborted).toBe(false);
    expect(await ledger.claim(event, "job-2")).toEqual({ outcome: "answering-elsewhere" });

    await ledger.release(event, claim.token);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toBeInstanceOf(LeaseLostError);
    lease.stop();
  });
});
