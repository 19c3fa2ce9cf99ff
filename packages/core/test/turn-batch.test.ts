import { describe, expect, it } from "vitest";
import { TurnBatch } from "../src/turn-batch.ts";

describe("TurnBatch", () => {
  it("runs the calls of one turn together, each getting its own outcome, and a repeated key in the next run", async () => {
    const runs: string[][] = [];
    const batch = new TurnBatch<string, string>(
      async (items) => {
        runs.push(items);
        return items.map((item) => item.toUpperCase());
      },
      (item) => [item],
    );
    const outcomes = await Promise.all(["a", "b", "a", "c"].map((item) => batch.call(item)));
    expect(outcomes).toEqual(["A", "B", "A", "C"]);
    expect(runs).toEqual([["a", "b", "c"], ["a"]]);
    expect(await batch.call("d")).toBe("D");
    expect(runs).toHaveLength(3);
  });

  it("without keys, runs every call of a turn in one run, in order, repeats included", async () => {
    const runs: string[][] = [];
    const batch = new TurnBatch<string, string>(async (items) => {
      runs.push(items);
      return items.map((item, i) => `${item}${i}`);
    });
    const outcomes = await Promise.all(["a", "b", "a"].map((item) => batch.call(item)));
    expect(outcomes).toEqual(["a0", "b1", "a2"]);
    expect(await batch.call("c")).toBe("c0");
    expect(runs).toEqual([["a", "b", "a"], ["c"]]);
  });

  it("rejects every call of a run that failed, and the next turn runs afresh", async () => {
    let fail = true;
    const batch = new TurnBatch<number, number>(
      async (items) => {
        if (fail) throw new Error("down");
        return items;
      },
      (n) => [String(n)],
    );
    const calls = [1, 2].map((n) => batch.call(n));
    for (const call of calls) await expect(call).rejects.toThrow("down");
    fail = false;
    expect(await batch.call(3)).toBe(3);
  });
});
