import { describe, expect, it } from "vitest";
import { tokenUsageKey, utcDay } from "../src/budget.ts";
import { BudgetGuard } from "../src/budget-guard.ts";
import { StoreUnavailableError } from "../src/errors.ts";
import { MemoryRateLimiter } from "../src/memory/rate-limiter.ts";
import { MemoryUsageMeter } from "../src/memory/usage-meter.ts";
import type { UsageMeter } from "../src/ports/usage-meter.ts";
import { UsageBatch } from "../src/usage-batch.ts";
import { quietLogger } from "./pipeline-support.ts";

/** A meter that counts its adds and can be taken away. */
function countingMeter() {
  const inner = new MemoryUsageMeter();
  const meter = {
    adds: 0,
    away: false as boolean,
    add: async (counts: { key: string; by: number }[], ttlMs: number) => {
      if (meter.away) throw new StoreUnavailableError("down");
      meter.adds++;
      await inner.add(counts, ttlMs);
    },
    read: (keys: string[]) => inner.read(keys),
  } satisfies UsageMeter & { adds: number; away: boolean };
  return meter;
}

describe("UsageBatch", () => {
  it("sums adds in memory and writes each key once a flush", async () => {
    const meter = countingMeter();
    const batch = new UsageBatch(meter, quietLogger);
    for (let i = 0; i < 10; i++)
      await batch.add(
        [
          { key: "a", by: 3 },
          { key: "b", by: 1 },
        ],
        60_000,
      );
    expect(meter.adds).toBe(0);
    expect(await batch.read(["a", "b", "c"])).toEqual([30, 10, 0]);
    await batch.flush();
    expect(meter.adds).toBe(2);
    expect(await meter.read(["a", "b"])).toEqual([30, 10]);
    await batch.flush();
    expect(meter.adds).toBe(2);
    expect(await batch.read(["a"])).toEqual([30]);
  });

  it("keeps what a failed flush could not write, and writes it once the meter is back", async () => {
    const meter = countingMeter();
    const batch = new UsageBatch(meter, quietLogger);
    await batch.add([{ key: "a", by: 5 }], 60_000);
    meter.away = true;
    await expect(batch.flush()).rejects.toThrow(StoreUnavailableError);
    await batch.add([{ key: "a", by: 2 }], 60_000);
    meter.away = false;
    await batch.close();
    expect(await meter.read(["a"])).toEqual([7]);
  });
});

describe("BudgetGuard with a batch", () => {
  const ws = { platform: "unit", tenantId: "tn_a", workspaceId: "ws_1" };
  const day = utcDay(Date.now());
  const keys = [tokenUsageKey(day, "tn_a"), tokenUsageKey(day, "tn_a", "ws_1")];

  it("writes at once the tokens a token budget holds, and batches the others", async () => {
    const meter = countingMeter();
    const batch = new UsageBatch(meter, quietLogger);
    const guard = new BudgetGuard(meter, new MemoryRateLimiter(), quietLogger, Date.now, batch);
    await guard.record(ws, 40, { tenant: {}, workspace: { answersPerMinute: 5 } });
    await guard.record(ws, 10, undefined);
    expect(meter.adds).toBe(0);
    const limited = { tenant: {}, workspace: { tokensPerDay: 100 } };
    await guard.record(ws, 60, limited);
    expect(meter.adds).toBe(1);
    expect(await meter.read(keys)).toEqual([60, 60]);
    await batch.flush();
    expect(await meter.read(keys)).toEqual([110, 110]);
    expect(await guard.admit(ws, limited)).toMatchObject({ within: false, limit: "tokensPerDay" });
  });
});
