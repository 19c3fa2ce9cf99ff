import { describe, expect, it } from "vitest";
import type { QueuedEvent } from "../src/chat-event.ts";
import { MalformedPayloadError, VerificationError } from "../src/errors.ts";
import { EventGate } from "../src/event-gate.ts";
import { Ingest } from "../src/ingest.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import type { AppDistribution, AppInstallations } from "../src/ports/app-distribution.ts";
import type { JobQueue } from "../src/ports/job-queue.ts";
import type { Inbound, InboundRequest } from "../src/ports/platform-adapter.ts";
import type { Workspace } from "../src/ports/tenant-directory.ts";
import { unusedFeedback } from "./feedback-support.ts";
import { CountingTelemetry, directoryOf, quietLogger, UnitPlatform, workspace } from "./pipeline-support.ts";

/** The unit platform's distributed app: signed by one header, routed by the body's team. */
const unitApp: AppDistribution = {
  eventsPath: "/unit/events",
  callbackPath: "/unit/oauth",
  verify(request) {
    if (request.headers["x-app-signature"] !== "the app's") throw new VerificationError("not the app's signature");
  },
  route(request) {
    const { team } = JSON.parse(request.rawBody.toString("utf8")) as { team?: string };
    if (!team) throw new MalformedPayloadError("no team");
    return { kind: "installation", keys: [`team:${team}`] };
  },
  beginInstall: () => Promise.reject(new Error("not in these tests")),
  completeInstall: () => Promise.reject(new Error("not in these tests")),
};

/** A unit platform whose deliveries may say that the app lost its access. */
class RevocablePlatform extends UnitPlatform {
  override normalize(request: InboundRequest, ws: Workspace, receivedAt: number): Inbound {
    const body = JSON.parse(request.rawBody.toString("utf8")) as { revoked?: string };
    return body.revoked ? { kind: "revoked", reason: body.revoked } : super.normalize(request, ws, receivedAt);
  }
}

class RecordingQueue implements JobQueue<QueuedEvent> {
  readonly jobs: { id: string; data: QueuedEvent }[] = [];
  async enqueue(id: string, data: QueuedEvent) {
    if (!this.jobs.some((job) => job.id === id)) this.jobs.push({ id, data });
  }
  consume = () => ({ close: async () => {} });
  depth = async () => this.jobs.length;
}

function setUp() {
  const installed = new Map([
    ["team:TA", "ws-a"],
    ["team:TB", "ws-b"],
  ]);
  const disabled: [string, string][] = [];
  const installations: AppInstallations = {
    beginInstall: () => Promise.reject(new Error("not in these tests")),
    takeInstall: () => Promise.reject(new Error("not in these tests")),
    install: () => Promise.reject(new Error("not in these tests")),
    workspaceFor: async (_platform, keys) => keys.map((key) => installed.get(key)).find(Boolean),
    disable: async (workspaceId, reason) => {
      disabled.push([workspaceId, reason]);
    },
  };
  const queue = new RecordingQueue();
  const claims = new MemoryClaimStore();
  const ingest = new Ingest({
    directory: directoryOf(workspace("ws-a"), workspace("ws-b")),
    adapters: new Map([["unit", new RevocablePlatform()]]),
    shared: { gate: new EventGate(claims, "instance-1", 30_000), queue },
    local: { gate: new EventGate(new MemoryClaimStore(), "instance-1", 30_000), queue: new RecordingQueue() },
    installations,
    feedback: unusedFeedback(),
    telemetry: new CountingTelemetry(),
    logger: quietLogger,
  });
  return { ingest, queue, disabled };
}

const atApp = (body: Record<string, unknown>, signature = "the app's"): InboundRequest => ({
  rawBody: Buffer.from(JSON.stringify(body)),
  headers: signature ? { "x-app-signature": signature } : {},
  query: {},
});
const message = (team: string, id: string) => ({ team, id, message: `m-${id}`, text: "hi" });

describe("Ingest at a distributed app's one URL", () => {
  it("queues each delivery for the workspace its installation is, once", async () => {
    const { ingest, queue } = setUp();
    const answers = await Promise.all([
      ingest.handleApp("unit", unitApp, atApp(message("TA", "e1"))),
      ingest.handleApp("unit", unitApp, atApp(message("TA", "e1"))),
      ingest.handleApp("unit", unitApp, atApp(message("TB", "e2"))),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.filter((answer) => (answer.body as { duplicate?: boolean }).duplicate)).toHaveLength(1);
    expect(queue.jobs.map(({ id, data }) => [id, data.workspaceId])).toEqual([
      ["message:ws-a:m-e1", "ws-a"],
      ["message:ws-b:m-e2", "ws-b"],
    ]);
  });

  it("answers an installation nobody made as an unknown workspace, and queues nothing", async () => {
    const { ingest, queue } = setUp();
    expect(await ingest.handleApp("unit", unitApp, atApp(message("TNOBODY", "e3")))).toEqual({
      status: 404,
      body: { error: "unknown workspace" },
    });
    expect(queue.jobs).toEqual([]);
  });

  it("refuses what the app did not sign (401) and what names no installation (400); a connection needs no signature", async () => {
    const { ingest, queue } = setUp();
    expect((await ingest.handleApp("unit", unitApp, atApp(message("TA", "e4"), "forged"))).status).toBe(401);
    expect((await ingest.handleApp("unit", unitApp, atApp(message("TA", "e4"), ""))).status).toBe(401);
    expect((await ingest.handleApp("unit", unitApp, atApp({ id: "e5" }))).status).toBe(400);
    expect(queue.jobs).toEqual([]);
    const viaConnection = await ingest.handleApp("unit", unitApp, atApp(message("TA", "e4"), ""), "connection");
    expect(viaConnection.status).toBe(200);
    expect(queue.jobs.map((job) => job.id)).toEqual(["message:ws-a:m-e4"]);
  });

  it("disables the workspace whose access was revoked, and queues nothing for it", async () => {
    const { ingest, queue, disabled } = setUp();
    const answer = await ingest.handleApp("unit", unitApp, atApp({ team: "TB", revoked: "uninstalled" }));
    expect(answer.status).toBe(200);
    expect(disabled).toEqual([["ws-b", "uninstalled"]]);
    expect(queue.jobs).toEqual([]);
  });
});
