import { describe, expect, it } from "vitest";
import type { QueuedEvent } from "../src/chat-event.ts";
import { DatabaseUnavailableError, StoreUnavailableError } from "../src/errors.ts";
import { EventGate } from "../src/event-gate.ts";
import { Ingest } from "../src/ingest.ts";
import { admissionKey } from "../src/keys.ts";
import type { Lane } from "../src/lane-admission.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { MemoryQueue } from "../src/memory/job-queue.ts";
import type { ClaimStore } from "../src/ports/claim-store.ts";
import type { PlatformAdapter } from "../src/ports/platform-adapter.ts";
import type { Telemetry } from "../src/ports/telemetry.ts";
import type { Workspace } from "../src/ports/tenant-directory.ts";
import { type FailMode, resolveSettings } from "../src/settings.ts";
import { unusedFeedback } from "./feedback-support.ts";
import { chatEvent } from "./support.ts";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const telemetry = new Proxy({}, { get: () => () => {} }) as Telemetry;
const unreachable: ClaimStore = {
  claim: () => Promise.reject(new StoreUnavailableError("connection refused")),
  extend: () => Promise.reject(new StoreUnavailableError("connection refused")),
  commit: () => Promise.reject(new StoreUnavailableError("connection refused")),
  settle: () => Promise.reject(new StoreUnavailableError("connection refused")),
  release: () => Promise.reject(new StoreUnavailableError("connection refused")),
  journal: () => Promise.reject(new StoreUnavailableError("connection refused")),
  journaled: () => Promise.reject(new StoreUnavailableError("connection refused")),
  journalAndClaim: () => Promise.reject(new StoreUnavailableError("connection refused")),
};

const event = chatEvent();
/** An adapter whose every delivery is `event`: the lanes, not the platform, are under test here. */
const adapter = {
  platform: "slack",
  verify: async () => {},
  normalize: () => ({ kind: "message", event }),
} as unknown as PlatformAdapter;

function lane(store: ClaimStore): Lane & { queued: () => Promise<number> } {
  const queue = new MemoryQueue<QueuedEvent>();
  return { gate: new EventGate(store, "instance-1", 30_000), queue, queued: () => queue.depth() };
}

function ingest(
  lanes: { shared: Lane; standby?: Lane; local: Lane },
  failMode: FailMode = "closed",
  directoryUp = true,
) {
  const workspace: Workspace = {
    id: event.workspaceId,
    tenantId: event.tenantId,
    platform: "slack",
    name: "a",
    credentials: {},
    settings: resolveSettings({ failMode }, "closed"),
    identity: {},
  };
  return new Ingest({
    directory: {
      workspace: async () => {
        if (!directoryUp) throw new DatabaseUnavailableError("PostgreSQL is unreachable");
        return workspace;
      },
    },
    adapters: new Map([["slack", adapter]]),
    ...lanes,
    feedback: unusedFeedback(),
    telemetry,
    logger: quiet,
  });
}

const deliver = (through: Ingest) =>
  through.handle("slack", event.workspaceId, { rawBody: Buffer.from("{}"), headers: {}, query: {} });

describe("Ingest's lanes", () => {
  it("takes a delivery in through the standby lane while the shared one is unreachable, and a redelivery finds it there", async () => {
    const standby = lane(new MemoryClaimStore());
    const local = lane(new MemoryClaimStore());
    const through = ingest({ shared: lane(unreachable), standby, local });
    expect((await deliver(through)).status).toBe(200);
    expect(await deliver(through)).toMatchObject({ status: 200, body: { duplicate: true } });
    expect([await standby.queued(), await local.queued()]).toEqual([1, 0]);
  });

  it("queues, under the same job id, a delivery whose claim is held by an instance that died before queueing it", async () => {
    const sharedStore = new MemoryClaimStore();
    await sharedStore.claim(admissionKey(event), "an instance that died before enqueueing", 30_000);
    const shared = lane(sharedStore);
    const standby = lane(new MemoryClaimStore());
    const through = ingest({ shared, standby, local: lane(new MemoryClaimStore()) });
    expect((await deliver(through)).status).toBe(200);
    expect((await deliver(through)).status).toBe(200);
    expect([await shared.queued(), await standby.queued()]).toEqual([1, 0]);
  });

  it("applies the fail mode only when both shared lanes are unreachable", async () => {
    const closedLocal = lane(new MemoryClaimStore());
    const closed = ingest({ shared: lane(unreachable), standby: lane(unreachable), local: closedLocal }, "closed");
    expect((await deliver(closed)).status).toBe(503);
    expect(await closedLocal.queued()).toBe(0);
    const openLocal = lane(new MemoryClaimStore());
    const open = ingest({ shared: lane(unreachable), standby: lane(unreachable), local: openLocal }, "open");
    expect((await deliver(open)).status).toBe(200);
    expect(await openLocal.queued()).toBe(1);
  });

  it("answers 503, not 404, for a workspace it cannot look up while the database is away", async () => {
    const shared = lane(new MemoryClaimStore());
    const response = await deliver(ingest({ shared, local: lane(new MemoryClaimStore()) }, "closed", false));
    expect(response.status).toBe(503);
    expect(await shared.queued()).toBe(0);
  });
});
