import { describe, expect, it } from "vitest";
import { type Budgets, utcDay } from "../src/budget.ts";
import { BudgetGuard } from "../src/budget-guard.ts";
import { StoreUnavailableError } from "../src/errors.ts";
import { MemoryRateLimiter } from "../src/memory/rate-limiter.ts";
import { MemoryUsageMeter } from "../src/memory/usage-meter.ts";
import type { UsageMeter } from "../src/ports/usage-meter.ts";
import { quietLogger } from "./pipeline-support.ts";

const ws = (tenantId: string, workspaceId: string) => ({ platform: "unit", tenantId, workspaceId });
const budgets = (tenant: Budgets["tenant"], workspace: Budgets["workspace"] = {}): Budgets => ({ tenant, workspace });

function guard(now = () => Date.now()) {
  return new BudgetGuard(new MemoryUsageMeter(), new MemoryRateLimiter(now), quietLogger, now);
}

describe("BudgetGuard", () => {
  it("lets everything through where no budget is set", async () => {
    const budget = guard();
    await budget.record(ws("tn_a", "ws_1"), 1_000_000);
    expect(await budget.admit(ws("tn_a", "ws_1"), undefined)).toEqual({ within: true });
    expect(await budget.admit(ws("tn_a", "ws_1"), budgets({}, {}))).toEqual({ within: true });
  });

  it("refuses once a tenant's tokens of the day reach its budget, for every workspace of that tenant only", async () => {
    const budget = guard();
    const limits = budgets({ tokensPerDay: 100 });
    expect(await budget.admit(ws("tn_a", "ws_1"), limits)).toEqual({ within: true });
    await budget.record(ws("tn_a", "ws_1"), 60);
    expect(await budget.admit(ws("tn_a", "ws_2"), limits)).toEqual({ within: true });
    // The call that crosses the line is let through (its cost is known only after it); the next ones are not.
    await budget.record(ws("tn_a", "ws_2"), 60);
    const over = { within: false, limit: "tokensPerDay", scope: "tenant" };
    expect(await budget.admit(ws("tn_a", "ws_1"), limits)).toEqual(over);
    expect(await budget.admit(ws("tn_a", "ws_2"), limits)).toEqual(over);
    expect(await budget.admit(ws("tn_b", "ws_3"), limits)).toEqual({ within: true });
  });

  it("holds a workspace to its own budget without holding its tenant's other workspaces", async () => {
    const budget = guard();
    const limits = budgets({ tokensPerDay: 1_000 }, { tokensPerDay: 10 });
    await budget.record(ws("tn_a", "ws_1"), 10);
    expect(await budget.admit(ws("tn_a", "ws_1"), limits)).toEqual({
      within: false,
      limit: "tokensPerDay",
      scope: "workspace",
    });
    expect(await budget.admit(ws("tn_a", "ws_2"), limits)).toEqual({ within: true });
  });

  it("counts a new day from zero", async () => {
    let now = Date.parse("2026-12-01T23:59:00Z");
    const budget = guard(() => now);
    const limits = budgets({ tokensPerDay: 10 });
    await budget.record(ws("tn_a", "ws_1"), 10);
    expect((await budget.admit(ws("tn_a", "ws_1"), limits)).within).toBe(false);
    now += 120_000;
    expect(await budget.admit(ws("tn_a", "ws_1"), limits)).toEqual({ within: true });
  });

  it("allows a tenant's answers per minute, and a refused answer takes no slot", async () => {
    let now = Date.now();
    const budget = guard(() => now);
    const limits = budgets({ answersPerMinute: 2 }, { answersPerMinute: 5 });
    expect(await budget.admit(ws("tn_a", "ws_1"), limits)).toEqual({ within: true });
    expect(await budget.admit(ws("tn_a", "ws_2"), limits)).toEqual({ within: true });
    const over = { within: false, limit: "answersPerMinute", scope: "tenant" };
    expect(await budget.admit(ws("tn_a", "ws_1"), limits)).toEqual(over);
    expect(await budget.admit(ws("tn_b", "ws_3"), limits)).toEqual({ within: true });
    now += 60_001;
    expect(await budget.admit(ws("tn_a", "ws_1"), limits)).toEqual({ within: true });
  });

  it("answers while its counters cannot be reached", async () => {
    const away: UsageMeter = {
      add: () => Promise.reject(new StoreUnavailableError("down")),
      read: () => Promise.reject(new StoreUnavailableError("down")),
    };
    const budget = new BudgetGuard(away, new MemoryRateLimiter(), quietLogger);
    await budget.record(ws("tn_a", "ws_1"), 10);
    expect(await budget.admit(ws("tn_a", "ws_1"), budgets({ tokensPerDay: 1 }))).toEqual({ within: true });
  });

  it("reports token use per day, the tenant's and each workspace's", async () => {
    const now = Date.parse("2026-12-01T12:00:00Z");
    const budget = guard(() => now);
    await budget.record(ws("tn_a", "ws_1"), 7);
    await budget.record(ws("tn_a", "ws_2"), 5);
    const tenant = await budget.usage("tn_a", undefined, 7);
    expect(tenant).toHaveLength(7);
    expect(tenant.at(-1)).toEqual({ day: utcDay(now), tokens: 12 });
    expect(tenant[0]).toEqual({ day: "2026-11-25", tokens: 0 });
    expect((await budget.usage("tn_a", "ws_2", 7)).at(-1)?.tokens).toBe(5);
  });
});
