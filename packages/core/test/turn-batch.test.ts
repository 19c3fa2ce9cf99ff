import { describe, expect, it, vi } from "vitest";
import { TurnBatch } from "../src/turn-batch.ts";

describe("TurnBatch", () => {
  it("runs the calls of one turn together, each getting its own outcome, and a repeated key in the next run", async () => {
    const runs: string[][] = [];
    const batch = new TurnBatch<string, string>(
      async (items) => {
        runs.push(items);
        return items.map((item) => item.toUpperCase());
      },
      { keysOf: (item) => [item] },
    );
    const outcomes = await Promise.all(["a", "b", "a", "c"].map((item) => batch.call(item)));
    expect(outcomes).toEqual(["A", "B", "A", "C"]);
    expect(runs).toEqual([["a", "b", "c"], ["a"]]);
    expect(await batch.call("d")).toBe("D");
    expect(runs).toHaveLength(3);
  });

  it("rejects every call of a run that failed, and the next turn runs afresh", async () => {
    let fail = true;
    const batch = new TurnBatch<number, number>(
      async (items) => {
        if (fail) throw new Error("down");
        return items;
      },
      { keysOf: (n) => [String(n)] },
    );
    const calls = [1, 2].map((n) => batch.call(n));
    for (const call of calls) await expect(call).rejects.toThrow("down");
    fail = false;
    expect(await batch.call(3)).toBe(3);
  });
});

describe("TurnBatch holding calls behind a run in flight (group commit)", () => {
  /** A run per call of `run`, each settled by hand. */
  function manualRuns() {
    const runs: { items: string[]; settle: () => void }[] = [];
    const run = (items: string[]) =>
      new Promise<string[]>((resolve) =>
        runs.push({ items, settle: () => resolve(items.map((i) => i.toUpperCase())) }),
      );
    return { runs, run };
  }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it("sends the calls of later turns together once the run in flight settles", async () => {
    const { runs, run } = manualRuns();
    const batch = new TurnBatch(run, { holdWhileRunningMs: 60_000 });
    const first = batch.call("a");
    await nextTurn();
    const later = [batch.call("b")];
    await nextTurn();
    later.push(batch.call("c"));
    await nextTurn();
    expect(runs.map((r) => r.items)).toEqual([["a"]]);
    runs[0]?.settle();
    expect(await first).toBe("A");
    await nextTurn();
    expect(runs.map((r) => r.items)).toEqual([["a"], ["b", "c"]]);
    runs[1]?.settle();
    expect(await Promise.all(later)).toEqual(["B", "C"]);
  });

  it("holds no longer than its bound behind a run that does not settle", async () => {
    const { runs, run } = manualRuns();
    const batch = new TurnBatch(run, { holdWhileRunningMs: 40 });
    void batch.call("stuck");
    await nextTurn();
    const started = performance.now();
    const next = batch.call("b");
    await vi.waitFor(() => expect(runs).toHaveLength(2), { timeout: 2_000, interval: 5 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(30);
    expect(runs[1]?.items).toEqual(["b"]);
    runs[1]?.settle();
    expect(await next).toBe("B");
  });

  it("runs at once when nothing is in flight", async () => {
    const { runs, run } = manualRuns();
    const batch = new TurnBatch(run, { holdWhileRunningMs: 60_000 });
    const one = batch.call("a");
    await nextTurn();
    runs[0]?.settle();
    await one;
    void batch.call("b");
    await nextTurn();
    expect(runs.map((r) => r.items)).toEqual([["a"], ["b"]]);
  });
});
