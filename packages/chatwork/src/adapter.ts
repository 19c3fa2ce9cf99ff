import type {
  BotIdentity,
  Inbound,
  InboundRequest,
  Logger,
  OutboundReply,
  PlatformAdapter,
  QueuedEvent,
  RateLimiter,
  SentReply,
  ThreadMessage,
  Workspace,
} from "@resident/core";
import { InvalidCredentialsError, VerificationError } from "@resident/core";
import { z } from "zod";
import { ChatworkApi } from "./api.ts";
import type { ChatworkCredentials } from "./credentials.ts";
import { errorText } from "./errors.ts";
import { toIdentity } from "./identity.ts";
import { normalizeDelivery } from "./normalize.ts";
import { parseDelivery } from "./payload.ts";
import { type ChatworkLimits, chatworkLimits } from "./rate-limits.ts";
import { findPostedReply, postReply } from "./send.ts";
import { readThread } from "./thread.ts";
import { verifyDelivery } from "./verify.ts";

export interface ChatworkAdapterOptions {
  /** CHATWORK_API_URL: https://api.chatwork.com/v2 by default. */
  apiUrl?: string;
  /** How long one request may take; a post that takes longer has an unknown outcome. Default 10 s. */
  timeoutMs?: number;
  /** Cluster-wide windows: Redis in production, so that Chatwork's limits hold for all instances together. */
  limiter: RateLimiter;
  logger?: Logger;
  /** Chatwork's published limits by default. */
  limits?: ChatworkLimits;
}

const meSchema = z.object({ account_id: z.number(), name: z.string().optional() });
const roomsSchema = z.array(z.object({ room_id: z.number(), type: z.string() }));

/** Chatwork: webhooks in, POST /rooms/{room_id}/messages out, through the shared rate limiter. See README.md. */
export class ChatworkAdapter implements PlatformAdapter<ChatworkCredentials> {
  readonly platform = "chatwork";
  private readonly api: ChatworkApi;

  constructor(options: ChatworkAdapterOptions) {
    this.api = new ChatworkApi({
      apiUrl: (options.apiUrl ?? "https://api.chatwork.com/v2").replace(/\/+$/, ""),
      timeoutMs: options.timeoutMs ?? 10_000,
      limiter: options.limiter,
      limits: options.limits ?? chatworkLimits,
      logger: options.logger,
    });
  }

  async verify(request: InboundRequest, workspace: Workspace<ChatworkCredentials>, now: number): Promise<void> {
    verifyDelivery(request, workspace.credentials.webhookTokens);
    // Chatwork signs no timestamp of its own, but the signed body carries the event time: a delivery older than the
    // event key's lifetime would slip past the gate, so it can only be a replay.
    const { time } = parseDelivery(request.rawBody);
    if (now - time * 1000 > workspace.settings.eventTtlSeconds * 1000) {
      throw new VerificationError("stale Chatwork delivery");
    }
  }

  normalize(request: InboundRequest, workspace: Workspace<ChatworkCredentials>, receivedAt: number): Inbound {
    return normalizeDelivery(parseDelivery(request.rawBody), workspace, receivedAt);
  }

  send(reply: OutboundReply, workspace: Workspace<ChatworkCredentials>): Promise<SentReply> {
    return postReply(this.api, workspace.credentials.apiToken, reply);
  }

  findReply(reply: OutboundReply, workspace: Workspace<ChatworkCredentials>): Promise<SentReply | undefined> {
    return findPostedReply(this.api, workspace.credentials.apiToken, workspace.identity, reply);
  }

  threadMessages(
    event: QueuedEvent,
    workspace: Workspace<ChatworkCredentials>,
    limit: number,
  ): Promise<ThreadMessage[]> {
    return readThread(this.api, workspace.credentials.apiToken, workspace.identity, event.conversation.id, limit);
  }

  async connect(credentials: ChatworkCredentials): Promise<BotIdentity> {
    const { apiToken } = credentials;
    const me = await this.api.request({ method: "GET", path: "/me", apiToken });
    if (me.status === 401) throw new InvalidCredentialsError(`Chatwork rejected the API token: ${errorText(me.body)}`);
    const account = me.status === 200 ? meSchema.safeParse(me.body) : undefined;
    if (!account?.success) throw new Error(`Chatwork GET /me failed (${me.status}): ${errorText(me.body)}`);
    const rooms = await this.api.request({ method: "GET", path: "/rooms", apiToken });
    const listed = rooms.status === 200 ? roomsSchema.safeParse(rooms.body) : undefined;
    if (!listed?.success) throw new Error(`Chatwork GET /rooms failed (${rooms.status}): ${errorText(rooms.body)}`);
    return toIdentity({
      accountId: String(account.data.account_id),
      name: account.data.name,
      directRoomIds: listed.data.filter((room) => room.type === "direct").map((room) => String(room.room_id)),
    });
  }
}
