import { randomBytes } from "node:crypto";
import type { ChatEvent, OutboundReply, RateLimiter, Workspace } from "@resident/core";
import { replyKey, resolveSettings } from "@resident/core";
import { MemoryRateLimiter } from "@resident/store";
import {
  FakeChatwork,
  type FakeChatworkOptions,
  mentionToMe,
  messageCreated,
  type RoomMessageInput,
  signChatworkWebhook,
} from "@resident/testkit/chatwork";
import {
  ChatworkAdapter,
  type ChatworkAdapterOptions,
  type ChatworkCredentials,
  chatworkCredentialsSchema,
  chatworkPlatform,
} from "../src/index.ts";

export const bot = { apiToken: `cw-api-${randomBytes(12).toString("hex")}`, accountId: 3430971, name: "honeniq_bot" };
export const user = { apiToken: `cw-api-${randomBytes(12).toString("hex")}`, accountId: 624077, name: "Hanako" };
export const groupRoom = 125733107;
export const directRoom = 125733108;
export const accountWebhookToken = randomBytes(32).toString("base64");
export const roomWebhookToken = randomBytes(32).toString("base64");

export interface WorldOptions {
  fake?: Partial<FakeChatworkOptions>;
  adapter?: Partial<ChatworkAdapterOptions>;
  limiter?: RateLimiter;
  workspaceId?: string;
}

/** A fake Chatwork and an adapter connected to it, with a workspace that holds an account and a room webhook. */
export async function chatworkWorld(options: WorldOptions = {}) {
  const fake = await new FakeChatwork({
    accounts: [bot, user],
    rooms: [
      { roomId: groupRoom, type: "group" },
      { roomId: directRoom, type: "direct" },
    ],
    ...options.fake,
  }).start();
  const limiter = options.limiter ?? new MemoryRateLimiter();
  const adapter = new ChatworkAdapter({
    apiUrl: fake.apiUrl,
    limiter,
    timeoutMs: 2_000,
    ...options.adapter,
  });
  const credentials = chatworkCredentialsSchema.parse({
    apiToken: bot.apiToken,
    webhookTokens: [accountWebhookToken, roomWebhookToken],
  });
  const workspace: Workspace<ChatworkCredentials> = {
    id: options.workspaceId ?? "ws-chatwork",
    tenantId: "tenant-1",
    platform: "chatwork",
    name: "Chatwork",
    credentials,
    settings: resolveSettings({}, chatworkPlatform.defaultFailMode),
    identity: await adapter.connect(credentials),
  };
  return { fake, adapter, limiter, workspace, close: () => fake.close() };
}

/** The account webhook's delivery of a user's message that addresses the bot, as Chatwork's client writes it. */
export function mentionDelivery(text: string, input: { roomId?: number; messageId?: string } = {}) {
  const body = `[To:${bot.accountId}]${bot.name}さん\n${text}`;
  const payload = mentionToMe({
    fromAccountId: user.accountId,
    toAccountId: bot.accountId,
    roomId: groupRoom,
    body,
    ...input,
  });
  return signChatworkWebhook({ webhookToken: accountWebhookToken, body: payload });
}

/** The room webhook's delivery of a message. */
export function createdDelivery(input: Partial<RoomMessageInput> & { body: string }) {
  const payload = messageCreated({ accountId: user.accountId, roomId: groupRoom, ...input });
  return signChatworkWebhook({ webhookToken: roomWebhookToken, body: payload });
}

export function outbound(event: ChatEvent, text: string): OutboundReply {
  return { event, text, replyKey: replyKey(event) };
}
