import { type StatIncrement, StoreUnavailableError, type WorkspaceRef } from "@resident/core";
import { MemoryStatsStore } from "@resident/store";
import { describe, expect, it } from "vitest";
import { createMetrics } from "../src/metrics.ts";
import { ServiceTelemetry } from "../src/telemetry.ts";

/*
 * The pipeline's counts are kept per workspace in memory and written to the stats store in batches; what the store
 * holds after a flush must be what happened, once, whatever the order of the calls and whether a flush failed.
 */

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const metrics = () =>
  createMetrics({ depth: async () => 0, pingStore: async () => undefined, databaseReachable: () => true });
const a: WorkspaceRef = { platform: "slack", tenantId: "tn_1", workspaceId: "ws_a" };
const b: WorkspaceRef = { platform: "teams", tenantId: "tn_1", workspaceId: "ws_b" };

/**
 * The memory store behind a switch that takes it away, counting the adds that reached it; `held` keeps each add
 * waiting until it settles.
 */
function switchableStore() {
  const inner = new MemoryStatsStore();
  const store = Object.assign(Object.create(inner) as MemoryStatsStore, {
    away: false,
    adds: 0,
    held: Promise.resolve(),
    async add(increments: StatIncrement[]) {
      await store.held;
      if (store.away) throw new StoreUnavailableError("stats away");
      store.adds++;
      await inner.add(increments);
    },
  });
  return store;
}

describe("ServiceTelemetry's stats", () => {
  it("counts each workspace in memory and writes the counts once, at the flush", async () => {
    const store = switchableStore();
    const telemetry = new ServiceTelemetry(metrics(), store, quiet, 3_600_000);
    for (let i = 0; i < 3; i++) telemetry.deliveryReceived(a);
    telemetry.eventDuplicate(a);
    telemetry.replySent(a, 900);
    telemetry.replyDuplicate(a);
    telemetry.llmUsed(a, 120, 800);
    telemetry.toolCalled(a, { tool: "search", outcome: "ok", replayed: false, latencyMs: 5 });
    telemetry.toolCalled(a, { tool: "search", outcome: "ok", replayed: true, latencyMs: 0 });
    telemetry.budgetExceeded(a, "tokensPerDay");
    telemetry.failure(a, "send", "the platform refused");
    telemetry.deliveryReceived(b);
    expect(await store.read("tn_1")).toEqual({});

    await telemetry.flush();
    await telemetry.flush();
    expect(store.adds).toBe(1);
    expect(await store.read("tn_1")).toEqual({
      ws_a: {
        events: 3,
        duplicateEvents: 1,
        replies: 1,
        duplicateReplies: 1,
        failures: 1,
        llmTokens: 120,
        toolCalls: 1,
        overBudget: 1,
      },
      ws_b: expect.objectContaining({ events: 1, replies: 0 }),
    });
    const activity = await store.activity("tn_1");
    expect(activity.ws_a).toMatchObject({ lastError: { stage: "send", message: "the platform refused" } });
    expect(activity.ws_a?.lastEventAt).toBeGreaterThan(0);
    expect(activity.ws_a?.lastReplyAt).toBeGreaterThan(0);
    expect(activity.ws_b).toEqual({ lastEventAt: expect.any(Number) });
  });

  it("keeps what a failed flush could not write, adds what came meanwhile, and writes it all once", async () => {
    const store = switchableStore();
    const telemetry = new ServiceTelemetry(metrics(), store, quiet, 3_600_000);
    telemetry.deliveryReceived(a);
    telemetry.failure(a, "agent", "first");
    store.away = true;
    let settle = () => {};
    store.held = new Promise((resolve) => (settle = resolve));
    const failing = telemetry.flush();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Counted while the flush was out: the failed batch comes back under these, and its older failure stays older.
    telemetry.deliveryReceived(a);
    telemetry.failure(a, "send", "second");
    settle();
    await failing;
    store.away = false;
    await telemetry.close();
    expect(store.adds).toBe(1);
    expect((await store.read("tn_1")).ws_a).toMatchObject({ events: 2, failures: 2 });
    expect((await store.activity("tn_1")).ws_a?.lastError).toMatchObject({ stage: "send", message: "second" });
  });
});
