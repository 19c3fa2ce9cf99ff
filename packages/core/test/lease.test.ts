import { describe, expect, it } from "vitest";
import { LeaseLostError, StoreUnavailableError } from "../src/errors.ts";
import { holdLease } from "../src/lease.ts";
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

const aborted = (signal: AbortSignal) =>
  new Promise<number>((resolve) => signal.addEventListener("abort", () => resolve(performance.now())));

describe("holdLease", () => {
  for (const failure of ["refused", "silent"] as const) {
    it(`aborts by its own clock before the lease can lapse when renewals are ${failure}`, async () => {
      const memory = new MemoryClaimStore();
      const link = cuttable(memory);
      const leaseMs = 600;
      const claim = await memory.claim("reply:ws:m1", "job-1", leaseMs);
      if (!claim.claimed) throw new Error("expected a claim");
      const lease = holdLease(link.store, "reply:ws:m1", claim.token, leaseMs);
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
    const lease = holdLease(memory, "reply:ws:m2", claim.token, 150);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(lease.signal.aborted).toBe(false);
    lease.stop();
  });

  it("aborts at once when a renewal finds the claim taken over", async () => {
    let now = 0;
    const memory = new MemoryClaimStore({ now: () => now });
    const claim = await memory.claim("reply:ws:m3", "job-1", 300);
    if (!claim.claimed) throw new Error("expected a claim");
    const lease = holdLease(memory, "reply:ws:m3", claim.token, 300);
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
    const lease = holdLease(memory, "reply:ws:m4", claim.token, 600, { now: () => now });
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
    const lease = holdLease(memory, "reply:ws:m5", claim.token, 600, { now: () => now, since: 700 });
    now = 1_199;
    expect(() => lease.assertHeld()).not.toThrow();
    now = 1_200;
    expect(() => lease.assertHeld()).toThrow(LeaseLostError);
    lease.stop();
  });
});
