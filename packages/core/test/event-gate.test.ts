import { describe, expect, it } from "vitest";
import { EventGate } from "../src/event-gate.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { chatEvent } from "./support.ts";

describe("EventGate", () => {
  const store = new MemoryClaimStore();
  const gate = new EventGate(store, "instance-a", 30_000);

  it("admits a delivery once, whoever asks and however often", async () => {
    const event = chatEvent();
    const results = await Promise.all(Array.from({ length: 20 }, () => gate.admit(event)));
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
    expect(results.find((r) => !r.claimed)).toMatchObject({ record: { state: "in_progress", owner: "instance-a" } });
  });

  it("keeps a queued marker after the job is queued", async () => {
    const event = chatEvent();
    const claim = await gate.admit(event);
    if (!claim.claimed) throw new Error("expected a claim");
    expect(await gate.markQueued(event, 60_000)).toBe(true);
    expect(await gate.admit(event)).toEqual({ claimed: false, record: { state: "done", value: "queued" } });
  });

  it("lets a redelivery in after the claim was abandoned", async () => {
    const event = chatEvent();
    const claim = await gate.admit(event);
    if (!claim.claimed) throw new Error("expected a claim");
    expect(await gate.abandon(event, claim.token)).toBe(true);
    expect((await gate.admit(event)).claimed).toBe(true);
  });

  it("admits a message once whatever delivers it: a twin with another event id finds its claim", async () => {
    const mention = chatEvent();
    const twin = chatEvent({ messageKey: mention.messageKey });
    expect((await gate.admit(mention)).claimed).toBe(true);
    expect(await gate.admit(twin)).toMatchObject({ claimed: false, record: { state: "in_progress" } });
    expect(gate.keyOf(twin)).toBe(gate.keyOf(mention));
  });

  it("admits each delivery of a fingerprinted message, and a click, by its own event id", async () => {
    const fingerprinted = chatEvent({ messageKeyWindowMs: 120_000 });
    const twin = chatEvent({ messageKey: fingerprinted.messageKey, messageKeyWindowMs: 120_000 });
    expect((await gate.admit(fingerprinted)).claimed).toBe(true);
    expect((await gate.admit(twin)).claimed).toBe(true);
    const click = { workspaceId: "ws_a", eventId: "click-1" };
    expect((await gate.admit(click)).claimed).toBe(true);
    expect((await gate.admit(click)).claimed).toBe(false);
  });

  it("scopes delivery identities by workspace", async () => {
    const a = chatEvent({ eventId: "Ev-same", workspaceId: "ws_a" });
    const b = chatEvent({ eventId: "Ev-same", workspaceId: "ws_b" });
    expect((await gate.admit(a)).claimed).toBe(true);
    expect((await gate.admit(b)).claimed).toBe(true);
  });

  it("lets a redelivery in once an abandoned lease lapses", async () => {
    let now = 1_000_000;
    const clockStore = new MemoryClaimStore({ now: () => now });
    const shortGate = new EventGate(clockStore, "instance-a", 5_000);
    const event = chatEvent();
    expect((await shortGate.admit(event)).claimed).toBe(true);
    now += 4_999;
    expect((await shortGate.admit(event)).claimed).toBe(false);
    now += 2;
    expect((await shortGate.admit(event)).claimed).toBe(true);
  });
});
