import { afterEach, describe, expect, it, vi } from "vitest";
import { CorruptRecordError, DatabaseUnavailableError, StoreUnavailableError } from "../src/errors.ts";
import { StoreHealth } from "../src/store-health.ts";

const waiting = { timeout: 5_000, interval: 10 };
const whenDown = () => new StoreUnavailableError("down");
/** A call through the breaker that settles as `outcome` says: resolves, or rejects with that error. */
const callThat = (health: StoreHealth, outcome?: Error) =>
  health.call(() => (outcome ? Promise.reject(outcome) : Promise.resolve("answered")), whenDown).catch(() => {});

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

  it("trips on a run of calls failed for want of the store with no success between, and not on fewer", async () => {
    const { health } = store();
    for (let i = 0; i < 4; i++) await callThat(health, new StoreUnavailableError("refused"));
    await callThat(health);
    for (let i = 0; i < 4; i++) await callThat(health, new DatabaseUnavailableError("timed out"));
    expect(health.up).toBe(true);
    await callThat(health, new StoreUnavailableError("refused"));
    expect(health.up).toBe(false);
  });

  it("counts an error of the store's own (an answer) as a success, not towards an outage", async () => {
    const { health } = store();
    for (let i = 0; i < 4; i++) await callThat(health, new StoreUnavailableError("refused"));
    await callThat(health, new CorruptRecordError("unreadable"));
    for (let i = 0; i < 4; i++) await callThat(health, new StoreUnavailableError("refused"));
    expect(health.up).toBe(true);
  });

  it("passes a call's outcome through, and while open rejects at once with its own error, without calling", async () => {
    const { health } = store();
    await expect(health.call(() => Promise.resolve(7), whenDown)).resolves.toBe(7);
    const refused = new CorruptRecordError("unreadable");
    await expect(health.call(() => Promise.reject(refused), whenDown)).rejects.toBe(refused);
    for (let i = 0; i < 5; i++) await callThat(health, new StoreUnavailableError("refused"));
    const run = vi.fn(() => Promise.resolve(7));
    await expect(health.call(run, whenDown)).rejects.toThrow(new StoreUnavailableError("down"));
    expect(run).not.toHaveBeenCalled();
  });

  it("probes only while no call has answered within the interval", async () => {
    const { health, state } = store(100);
    await vi.waitFor(() => expect(state.probes).toBeGreaterThanOrEqual(3), waiting);
    const before = state.probes;
    for (let i = 0; i < 20; i++) {
      await callThat(health);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(state.probes - before).toBeLessThanOrEqual(1);
  });
});
