import { afterEach, describe, expect, it, vi } from "vitest";
import { StoreHealth } from "../src/store-health.ts";

const waiting = { timeout: 5_000, interval: 10 };

describe("StoreHealth", () => {
  const open: StoreHealth[] = [];
  afterEach(() => {
    for (const health of open.splice(0)) health.close();
  });
  /** A store whose probe answers while `answering` says so, and hangs otherwise; changes and probes are counted. */
  const store = (probeIntervalMs = 20) => {
    const state = { answering: true, probes: 0, changes: [] as string[] };
    const health = new StoreHealth(
      () => {
        state.probes++;
        return state.answering ? Promise.resolve() : new Promise(() => {});
      },
      { probeIntervalMs, probeTimeoutMs: 30, onChange: (up, reason) => state.changes.push(`${up}: ${reason}`) },
    );
    open.push(health);
    return { health, state };
  };

  it("trips when probes go unanswered, and closes by itself once they are answered again", async () => {
    const { health, state } = store();
    state.answering = false;
    await vi.waitFor(() => expect(health.up).toBe(false), waiting);
    state.answering = true;
    await vi.waitFor(() => expect(health.up).toBe(true), waiting);
    expect(state.changes).toEqual(["false: probe unanswered", "true: probe answered again"]);
  });

  it("trips on a run of failed calls with no success between, and not on fewer", () => {
    const { health } = store();
    for (let i = 0; i < 4; i++) health.callFailed();
    health.callSucceeded();
    for (let i = 0; i < 4; i++) health.callFailed();
    expect(health.up).toBe(true);
    health.callFailed();
    expect(health.up).toBe(false);
  });

  it("probes only while no call has answered within the interval", async () => {
    const { health, state } = store(100);
    await vi.waitFor(() => expect(state.probes).toBeGreaterThanOrEqual(3), waiting);
    const before = state.probes;
    for (let i = 0; i < 20; i++) {
      health.callSucceeded();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(state.probes - before).toBeLessThanOrEqual(1);
  });
});
