import { createHash } from "node:crypto";

/**
 * How long a fingerprint stands for one message. Teams retries within 15-30 s; the same text from the same sender
 * in the same place after this is a new question. The window slides: it is the reply marker's lifetime, not a
 * bucket of the clock, so no retry is ever split from its original at a bucket's edge.
 */
export const fingerprintWindowMs = 120_000;

/** Joins ids so that different id lists can never give the same key, whatever characters Teams puts in them. */
function joinIds(...ids: string[]): string {
  return ids.map(encodeURIComponent).join(":");
}

/** The delivery identity: the activity in its tenant and conversation. */
export function teamsEventId(aadTenantId: string, conversationId: string, activityId: string): string {
  return joinIds(aadTenantId, conversationId, activityId);
}

export interface MessageIdentity {
  aadTenantId: string;
  /**
   * The chat or channel, without `;messageid=`: a retry of a new channel post may come with the post's new id
   * there or with the old one, and must match either way.
   */
  conversation: string;
  senderId: string;
  /** The text with the bot's mentions removed. */
  text: string;
}

/**
 * The user message's identity, shared by a Teams retry that comes with a new activity id (and a new timestamp):
 * the conversation plus a fingerprint of sender, place and text. It identifies the message for
 * `fingerprintWindowMs` (ChatEvent.messageKeyWindowMs).
 */
export function teamsMessageKey(message: MessageIdentity): string {
  const fingerprint = createHash("sha256")
    .update(JSON.stringify([message.senderId, message.conversation, message.text]))
    .digest("base64url")
    .slice(0, 22);
  return joinIds(message.aadTenantId, message.conversation, fingerprint);
}
