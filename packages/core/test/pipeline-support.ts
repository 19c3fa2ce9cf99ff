import type { ChatEvent } from "../src/chat-event.ts";
import { MalformedPayloadError, StoreUnavailableError, VerificationError } from "../src/errors.ts";
import type { ClaimStore } from "../src/ports/claim-store.ts";
import type {
  Inbound,
  InboundRequest,
  OutboundReply,
  PlatformAdapter,
  SentReply,
} from "../src/ports/platform-adapter.ts";
import type { Logger, Telemetry } from "../src/ports/telemetry.ts";
import type { TenantDirectory, Workspace } from "../src/ports/tenant-directory.ts";
import { resolveSettings, type WorkspaceSettingsInput } from "../src/settings.ts";

/*
 * The pipeline's outside edges for unit tests: a tiny platform that signs with a header and posts into an array,
 * a directory of fixed workspaces, telemetry that counts, and a store that is unreachable. Our own parts
 * (gate, ledger, sender, the in-memory store and queue) are the real ones.
 */

export const quietLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export function workspace(id: string, settings: WorkspaceSettingsInput = {}): Workspace {
  return {
    id,
    tenantId: "tenant-1",
    platform: "unit",
    name: id,
    credentials: { secret: "s3cret-value" },
    settings: resolveSettings(settings, "closed"),
    identity: { botId: "bot" },
  };
}

export function directoryOf(...workspaces: Workspace[]): TenantDirectory {
  const byId = new Map(workspaces.map((ws) => [ws.id, ws]));
  return { workspace: async (id) => byId.get(id) };
}

/** A delivery of the unit platform: `{id, message, text}` under a signature header. */
export function delivery(
  id: string,
  message: string,
  options: { signed?: boolean; body?: string } = {},
): InboundRequest {
  return {
    rawBody: Buffer.from(options.body ?? JSON.stringify({ id, message, text: `question ${message}` })),
    headers: options.signed === false ? {} : { "x-unit-signature": "genuine" },
    query: {},
  };
}

/** The unit platform: what it was asked to post, and what it answers while posting or reading back. */
export class UnitPlatform implements PlatformAdapter {
  readonly platform = "unit";
  readonly posts: OutboundReply[] = [];
  /** Thrown by the next sends, one each, before anything is posted... */
  readonly sendFailures: Error[] = [];
  /** ...or after the post landed. */
  readonly failuresAfterPost: Error[] = [];
  findReply?: (reply: OutboundReply) => Promise<SentReply | undefined> = async (reply) => {
    const index = this.posts.findIndex((post) => post.replyKey === reply.replyKey);
    return index === -1 ? undefined : { messageId: `m${index + 1}` };
  };

  async verify(request: InboundRequest): Promise<void> {
    if (request.headers["x-unit-signature"] !== "genuine") throw new VerificationError("bad signature");
  }

  normalize(request: InboundRequest, ws: Workspace, receivedAt: number): Inbound {
    let body: { id: string; message: string; text: string };
    try {
      body = JSON.parse(request.rawBody.toString("utf8"));
    } catch {
      throw new MalformedPayloadError("the body is not JSON");
    }
    const event: ChatEvent = {
      platform: "unit",
      tenantId: ws.tenantId,
      workspaceId: ws.id,
      eventId: body.id,
      messageKey: body.message,
      conversation: { id: "room", replyToId: body.message },
      author: { id: "alice", isBot: false, isSelf: false },
      text: body.text,
      receivedAt,
    };
    return { kind: "message", event };
  }

  async send(reply: OutboundReply): Promise<SentReply> {
    const before = this.sendFailures.shift();
    if (before) throw before;
    this.posts.push(reply);
    const after = this.failuresAfterPost.shift();
    if (after) throw after;
    return { messageId: `m${this.posts.length}` };
  }

  async connect() {
    return { botId: "bot" };
  }
}

/** Telemetry that counts each call by name, with the failure stages it was told. */
export class CountingTelemetry implements Telemetry {
  readonly counts: Record<string, number> = {};
  readonly failureStages: string[] = [];
  private bump = (name: string) => {
    this.counts[name] = (this.counts[name] ?? 0) + 1;
  };
  deliveryReceived = () => this.bump("deliveryReceived");
  platformRetry = () => this.bump("platformRetry");
  eventDuplicate = () => this.bump("eventDuplicate");
  standbyPass = () => this.bump("standbyPass");
  failOpenPass = () => this.bump("failOpenPass");
  acked = () => this.bump("acked");
  replyDuplicate = () => this.bump("replyDuplicate");
  replySent = () => this.bump("replySent");
  outcomeUnknown = () => this.bump("outcomeUnknown");
  failure = (_ws: unknown, stage: string) => {
    this.bump("failure");
    this.failureStages.push(stage);
  };
  llmUsed = () => this.bump("llmUsed");
  toolCalled = () => this.bump("toolCalled");
  budgetExceeded = () => this.bump("budgetExceeded");
}

/** A claim store that cannot be reached: every call rejects as Redis's does when it is down. */
export const unreachableStore: ClaimStore = {
  claim: () => Promise.reject(new StoreUnavailableError("store down")),
  extend: () => Promise.reject(new StoreUnavailableError("store down")),
  commit: () => Promise.reject(new StoreUnavailableError("store down")),
  settle: () => Promise.reject(new StoreUnavailableError("store down")),
  release: () => Promise.reject(new StoreUnavailableError("store down")),
  journal: () => Promise.reject(new StoreUnavailableError("store down")),
  journaled: () => Promise.reject(new StoreUnavailableError("store down")),
  journalAndClaim: () => Promise.reject(new StoreUnavailableError("store down")),
};
