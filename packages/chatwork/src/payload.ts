import { parsedOncePerBody, parseJsonBody, parsePayload } from "@resident/core";
import { z } from "zod";

/** Chatwork message ids exceed a JS number's precision: they stay strings, and must arrive as digit strings. */
const messageId = z.string().regex(/^\d+$/);
const accountOrRoomId = z.number().int().nonnegative();

const envelopeSchema = z.object({
  webhook_setting_id: z.string().min(1),
  webhook_event_type: z.string().min(1),
  webhook_event_time: z.number(),
  webhook_event: z.unknown(),
});

const mentionSchema = z.object({
  from_account_id: accountOrRoomId,
  to_account_id: accountOrRoomId,
  room_id: accountOrRoomId,
  message_id: messageId,
  body: z.string(),
});

const roomMessageSchema = z.object({
  account_id: accountOrRoomId,
  room_id: accountOrRoomId,
  message_id: messageId,
  body: z.string(),
});

/** The message a webhook event is about, the same shape whichever webhook delivered it. */
export interface ChatworkMessage {
  roomId: string;
  messageId: string;
  authorId: string;
  /** mention_to_me: the account that was addressed. */
  mentionedId?: string;
  body: string;
}

export interface ChatworkDelivery {
  settingId: string;
  eventType: string;
  /** Epoch seconds when Chatwork recorded the event. */
  time: number;
  /** Absent for event types this adapter does not handle. */
  message?: ChatworkMessage;
  payload: unknown;
}

/** Parses a (verified) webhook body. Throws MalformedPayloadError. */
export const parseDelivery = parsedOncePerBody((rawBody): ChatworkDelivery => {
  const payload = parseJsonBody(rawBody);
  const envelope = parsePayload(envelopeSchema, payload, "Chatwork webhook");
  const delivery = {
    settingId: envelope.webhook_setting_id,
    eventType: envelope.webhook_event_type,
    time: envelope.webhook_event_time,
    payload,
  };
  switch (envelope.webhook_event_type) {
    case "mention_to_me": {
      const event = parsePayload(mentionSchema, envelope.webhook_event, "mention_to_me event");
      const message = {
        roomId: String(event.room_id),
        messageId: event.message_id,
        authorId: String(event.from_account_id),
        mentionedId: String(event.to_account_id),
        body: event.body,
      };
      return { ...delivery, message };
    }
    case "message_created":
    case "message_updated": {
      const event = parsePayload(roomMessageSchema, envelope.webhook_event, `${envelope.webhook_event_type} event`);
      const message = {
        roomId: String(event.room_id),
        messageId: event.message_id,
        authorId: String(event.account_id),
        body: event.body,
      };
      return { ...delivery, message };
    }
    default:
      return delivery;
  }
});
