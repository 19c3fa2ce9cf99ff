import { createHmac } from "node:crypto";
import type { InboundRequest } from "@resident/core";

/** A webhook body as Chatwork sends it. */
export interface ChatworkWebhookPayload {
  webhook_setting_id: string;
  webhook_event_type: string;
  /** Epoch seconds. */
  webhook_event_time: number;
  webhook_event: Record<string, unknown>;
}

let lastMessageId = 1_984_676_321_621_704_704n;

/** A fresh Chatwork message id: a 19-digit string, beyond a JS number's precision, as Chatwork's are. */
export function nextChatworkMessageId(): string {
  lastMessageId += 1n;
  return lastMessageId.toString();
}

const epochSeconds = () => Math.floor(Date.now() / 1000);

export interface MentionToMeInput {
  webhookSettingId?: string;
  fromAccountId: number;
  toAccountId: number;
  roomId: number;
  messageId?: string;
  body: string;
  /** Epoch seconds; now by default. */
  time?: number;
}

/** An account webhook's event: someone addressed the account with [To:] or a reply. */
export function mentionToMe(input: MentionToMeInput): ChatworkWebhookPayload {
  const time = input.time ?? epochSeconds();
  return {
    webhook_setting_id: input.webhookSettingId ?? "2655",
    webhook_event_type: "mention_to_me",
    webhook_event_time: time,
    webhook_event: {
      from_account_id: input.fromAccountId,
      to_account_id: input.toAccountId,
      room_id: input.roomId,
      message_id: input.messageId ?? nextChatworkMessageId(),
      body: input.body,
      send_time: time,
      update_time: 0,
    },
  };
}

export interface RoomMessageInput {
  webhookSettingId?: string;
  accountId: number;
  roomId: number;
  messageId?: string;
  body: string;
  /** Epoch seconds; now by default. */
  time?: number;
}

/** A room webhook's event: a message was posted in the room. */
export function messageCreated(input: RoomMessageInput): ChatworkWebhookPayload {
  return roomEvent("message_created", input, 0);
}

/** A room webhook's event: a message in the room was edited. */
export function messageUpdated(input: RoomMessageInput): ChatworkWebhookPayload {
  return roomEvent("message_updated", input, input.time ?? epochSeconds());
}

function roomEvent(type: string, input: RoomMessageInput, updateTime: number): ChatworkWebhookPayload {
  const time = input.time ?? epochSeconds();
  return {
    webhook_setting_id: input.webhookSettingId ?? "246",
    webhook_event_type: type,
    webhook_event_time: time,
    webhook_event: {
      message_id: input.messageId ?? nextChatworkMessageId(),
      room_id: input.roomId,
      account_id: input.accountId,
      body: input.body,
      send_time: time,
      update_time: updateTime,
    },
  };
}

export interface SignChatworkWebhookInput {
  webhookToken: string;
  /** The payload, serialized compactly as Chatwork does, or the exact raw body. */
  body: ChatworkWebhookPayload | string;
  /** Where the signature travels. Chatwork sends both the header and the query parameter. */
  placement?: "header" | "query" | "both";
}

export interface SignedChatworkWebhook extends InboundRequest {
  headers: Record<string, string>;
  query: Record<string, string>;
  signature: string;
}

/** A delivery as Chatwork makes it: base64(HMAC-SHA256(key = base64-decoded webhook token, raw body)). */
export function signChatworkWebhook({
  webhookToken,
  body,
  placement = "both",
}: SignChatworkWebhookInput): SignedChatworkWebhook {
  const rawBody = Buffer.from(typeof body === "string" ? body : JSON.stringify(body), "utf8");
  const signature = createHmac("sha256", Buffer.from(webhookToken, "base64")).update(rawBody).digest("base64");
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "ChatWork-Webhook/1.0.0",
  };
  const query: Record<string, string> = {};
  if (placement !== "query") headers["x-chatworkwebhooksignature"] = signature;
  if (placement !== "header") query.chatwork_webhook_signature = signature;
  return { rawBody, headers, query, signature };
}
