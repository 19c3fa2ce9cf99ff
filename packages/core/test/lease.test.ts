import { describe, expect, it } from "vitest";
import { LeaseLostError, StoreUnavailableError } from "../src/errors.ts";
import { LeaseKeeper } from "../src/lease.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import type { ClaimStore } from "../src/ports/claim-store.ts";

/** The in-memory store behind a link that can be cut: renewals then fail at once, or never answer. */
function cuttable(store: MemoryClaimStore) {
  let link: "up" | "refused" | "silent" = "up";
  const cut: ClaimStore = {
    claim: (...args) => store.claim(...args),
    commit: (...args) => store.commit(...args),
    settle: (...args) => store.settle(...args),
    release: (...args) => store.release(...args),
    journal: (...args) => store.journal(...args),
    journaled: (...args) => store.journaled(...args),
    journalAndClaim: (...args) => store.journalAndClaim(...args),
    extend(...args) {
      if (link === "refused") return Promise.reject(new StoreUnavailableError("connection refused"));
      if (link === "silent") return new Promise<boolean>(() => {});
      return store.extend(...args);
    },
  };
  return { store: cut, set: (state: typeof link) => (link = state) };
}

/** The in-memory store, recording each event-loop turn's renewals (the keys a store could batch into one call). */
function turnCounting(store: MemoryClaimStore) {
  const turns: string[][] = [];
  let turn: string[] | undefined;
  const counted: ClaimStore = Object.assign(Object.create(store) as MemoryClaimStore, {
    extend(key: string, token: string, leaseMs: number) {
      if (!turn) {
        const opened: string[] = [];
        turns.push(opened);
        turn = opened;
        setImmediate(() => (turn = undefined));
      }
      turn.push(key);
      return store.extend(key, token, leaseMs);
    },
  });
  return { store: counted, turns };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const aborted = (signal: AbortSignal) =>
  new Promise<number>((resolve) => signal.addEventListener("abort", () => resolve(performance.now())));

describe("LeaseKeeper", () => {
  for (const failure of ["refused", "silent"] as const) {
    it(`aborts by its own clock before the lease can lapse when renewals are ${failure}`, async () => {
      const memory = new MemoryClaimStore();
      const link = cuttable(memory);
      const leaseMs = 600;
      const claim = await memory.claim("reply:ws:m1", "job-1", leaseMs);
      if (!claim.claimed) throw new Error("expected a claim");
      const lease = new LeaseKeeper(link.store, leaseMs).hold("reply:ws:m1", claim.token);
      // Two renewals go through, then the store is cut off.
      await new Promise((resolve) => setTimeout(resolve, 450));
      link.set(failure);
      const cutAt = performance.now();
      const at = await aborted(lease.signal);
      lease.stop();
      expect(lease.signal.reason).toBeInstanceOf(LeaseLostError);
      expect(at - cutAt).toBeLessThan(leaseMs);
      // The store still holds the claim for its holder: nobody else can have taken it over yet.
      expect((await memory.claim("reply:ws:m1", "job-2", leaseMs)).claimed).toBe(false);
    });
  }

  it("keeps the lease past many of its lengths while renewals go through", async () => {
    const memory = new MemoryClaimStore();
    const claim = await memory.claim("reply:ws:m2", "job-1", 150);
    if (!claim.claimed) throw new Error("expected a claim");
    const lease = new LeaseKeeper(memory, 150).hold("reply:ws:m2", claim.token);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(lease.signal.aborted).toBe(false);
    lease.stop();
  });

  it("aborts at once when a renewal finds the claim taken over", async () => {
    let now = 0;
    const memory = new MemoryClaimStore({ now: () => now });
    const claim = await memory.claim("reply:ws:m3", "job-1", 300);
    if (!claim.claimed) throw new Error("expected a claim");
    const lease = new LeaseKeeper(memory, 300).hold("reply:ws:m3", claim.token);
    now += 301;
    expect((await memory.claim("reply:ws:m3", "job-2", 300)).claimed).toBe(true);
    await aborted(lease.signal);
    expect(String(lease.signal.reason)).toContain("was lost");
    lease.stop();
  });

  it("refuses a post by its own clock once the lease may lapse, before its watchdog's timer has run", async () => {
    let now = 0;
    const memory = new MemoryClaimStore();
    const claim = await memory.claim("reply:ws:m4", "job-1", 600);
    if (!claim.claimed) throw new Error("expected a claim");
    const lease = new LeaseKeeper(memory, 600, { now: () => now }).hold("reply:ws:m4", claim.token);
    now = 499;
    expect(() => lease.assertHeld()).not.toThrow();
    // A process paused past five sixths of its lease: no timer has run yet, the check itself sees it.
    now = 500;
    expect(() => lease.assertHeld()).toThrow(LeaseLostError);
    expect(lease.signal.aborted).toBe(true);
    lease.stop();
  });

  it("counts the lease from when its claim was sent, not from when the claim came back", async () => {
    let now = 1_000;
    const memory = new MemoryClaimStore();
    const claim = await memory.claim("reply:ws:m5", "job-1", 600);
    if (!claim.claimed) throw new Error("expected a claim");
    // The claim was sent at 700 and took 300 to come back: the store may have begun the lease at 700.
    const lease = new LeaseKeeper(memory, 600, { now: () => now }).hold("reply:ws:m5", claim.token, 700);
    now = 1_199;
    expect(() => lease.assertHeld()).not.toThrow();
    now = 1_200;
    expect(() => lease.assertHeld()).toThrow(LeaseLostError);
    lease.stop();
  });

  it("renews every lease it holds in one event-loop turn a tick, however far apart they were taken", async () => {
    const memory = new MemoryClaimStore();
    const { store, turns } = turnCounting(memory);
    const keeper = new LeaseKeeper(store, 300);
    const keys = Array.from({ length: 6 }, (_, i) => `reply:ws:t${i}`);
    const leases = [];
    for (const key of keys) {
      const claim = await memory.claim(key, "job", 300);
      if (!claim.claimed) throw new Error("expected a claim");
      leases.push(keeper.hold(key, claim.token));
      await sleep(15);
    }
    turns.length = 0;
    await sleep(450);
    expect(turns.length).toBeGreaterThanOrEqual(2);
    for (const turn of turns) expect([...turn].sort()).toEqual(keys);
    expect(leases.some((lease) => lease.signal.aborted)).toBe(false);
    for (const lease of leases) lease.stop();
  });

  it("renews only what it still holds, and nothing once it holds nothing", async () => {
    const memory = new MemoryClaimStore();
    const { store, turns } = turnCounting(memory);
    const keeper = new LeaseKeeper(store, 150);
    const [first, second] = await Promise.all(
      ["reply:ws:s1", "reply:ws:s2"].map((key) => memory.claim(key, "job", 150)),
    );
    if (!first?.claimed || !second?.claimed) throw new Error("expected claims");
    const kept = keeper.hold("reply:ws:s1", first.token);
    keeper.hold("reply:ws:s2", second.token).stop();
    await sleep(200);
    expect(new Set(turns.flat())).toEqual(new Set(["reply:ws:s1"]));
    kept.stop();
    turns.length = 0;
    await sleep(200);
    expect(turns).toEqual([]);
  });

  it("aborts the lease that was taken over and keeps the others it renews with it", async () => {
    let now = 0;
    const memory = new MemoryClaimStore({ now: () => now });
    const keeper = new LeaseKeeper(memory, 300);
    const lost = await memory.claim("reply:ws:l1", "job-1", 300);
    if (!lost.claimed) throw new Error("expected a claim");
    now += 301;
    expect((await memory.claim("reply:ws:l1", "job-2", 300)).claimed).toBe(true);
    const kept = await memory.claim("reply:ws:l2", "job-1", 300);
    if (!kept.claimed) throw new Error("expected a claim");
    const leases = [keeper.hold("reply:ws:l1", lost.token), keeper.hold("reply:ws:l2", kept.token)];
    await aborted(leases[0]?.signal ?? AbortSignal.abort());
    expect(leases[1]?.signal.aborted).toBe(false);
    for (const lease of leases) lease.stop();
  });
});
