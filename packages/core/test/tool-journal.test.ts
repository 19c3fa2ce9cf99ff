import { describe, expect, it } from "vitest";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import type { ToolOutcome } from "../src/ports/agent.ts";
import { diedMidCall, ToolJournal } from "../src/tool-journal.ts";

const event = { workspaceId: "ws_a", messageKey: "C1:1700000000.000100" };
const done = (content: string): ToolOutcome => ({ status: "done", content, isError: false });

describe("ToolJournal", () => {
  const journalOn = (store = new MemoryClaimStore()) => ({ store, journal: new ToolJournal(store, event, 60_000) });

  it("runs a call once: a second attempt reads the outcome back, with the same idempotency key offered", async () => {
    const { store, journal } = journalOn();
    const keys: string[] = [];
    const run = async (key: string) => {
      keys.push(key);
      return done("ticket 42");
    };
    expect(await journal.call(0, 0, run)).toEqual({ outcome: done("ticket 42"), replayed: false });
    expect(await new ToolJournal(store, event, 60_000).call(0, 0, run)).toEqual({
      outcome: done("ticket 42"),
      replayed: true,
    });
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^resident-[0-9a-f]{40}$/);
    // Another call of the step, another step, another message: other keys.
    await journal.call(0, 1, run);
    await journal.call(1, 0, run);
    await new ToolJournal(store, { ...event, messageKey: "C1:2" }, 60_000).call(0, 0, run);
    expect(new Set(keys).size).toBe(4);
  });

  it("a call begun by an attempt that never recorded its outcome is unknown to the next, which does not run it", async () => {
    const { store, journal } = journalOn();
    void journal.call(0, 0, () => new Promise(() => {}));
    await expect.poll(() => store.journaled("toolcall:ws_a:C1:1700000000.000100:0:0:begun")).toBeDefined();
    let ran = false;
    const next = await new ToolJournal(store, event, 60_000).call(0, 0, async () => {
      ran = true;
      return done("twice");
    });
    expect(ran).toBe(false);
    expect(next).toEqual({ outcome: { status: "unknown", reason: diedMidCall }, replayed: true });
  });

  it("two attempts racing agree on one outcome: the first written", async () => {
    const { store } = journalOn();
    let release: () => void = () => {};
    const slow = new ToolJournal(store, event, 60_000).call(
      0,
      0,
      () => new Promise<ToolOutcome>((resolve) => (release = () => resolve(done("late")))),
    );
    await expect.poll(() => store.journaled("toolcall:ws_a:C1:1700000000.000100:0:0:begun")).toBeDefined();
    const other = await new ToolJournal(store, event, 60_000).call(0, 0, async () => done("never"));
    release();
    expect((await slow).outcome).toEqual(other.outcome);
    expect(other.outcome.status).toBe("unknown");
  });

  it("keeps a step's turn once: a later keep gets the first", async () => {
    const { journal } = journalOn();
    expect(await journal.step(0)).toBeUndefined();
    expect(await journal.keepStep(0, "first")).toBe("first");
    expect(await journal.keepStep(0, "second")).toBe("first");
    expect(await journal.step(0)).toBe("first");
  });
});
