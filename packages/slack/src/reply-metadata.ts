import type { OutboundReply } from "@resident/core";
import { z } from "zod";

/** The metadata event type that marks a message as one of our replies. */
const replyEventType = "resident_reply";

/** Stamped on every reply (chat.postMessage `metadata`) so it can be found again after an unknown outcome. */
export function replyMetadata(reply: OutboundReply) {
  return {
    event_type: replyEventType,
    event_payload: { reply_key: reply.replyKey, source_event: reply.event.eventId },
  };
}

const threadPageSchema = z.object({
  messages: z
    .array(
      z.object({
        ts: z.string().optional(),
        bot_id: z.string().optional(),
        metadata: z
          .object({ event_type: z.string().optional(), event_payload: z.record(z.string(), z.unknown()).optional() })
          .optional(),
      }),
    )
    .default([]),
});

/** The ts of the message in one conversations.replies page that carries `replyKey`, if any. */
export function findStampedReply(page: unknown, replyKey: string): string | undefined {
  const { messages } = threadPageSchema.parse(page);
  const ours = messages.find(
    ({ metadata }) => metadata?.event_type === replyEventType && metadata.event_payload?.reply_key === replyKey,
  );
  return ours?.ts;
}

/**
 * The ts of the first message of our bot after `after` in one conversations.replies page that carries no reply
 * stamp: a stream opened and never stopped (every reply we finish is stamped), if any.
 */
export function findUnstampedReply(page: unknown, botId: string, after: string): string | undefined {
  const { messages } = threadPageSchema.parse(page);
  const ours = messages.find(
    ({ ts, bot_id, metadata }) =>
      bot_id === botId && ts !== undefined && Number(ts) > Number(after) && metadata?.event_type !== replyEventType,
  );
  return ours?.ts;
}
