import type { ThreadMessage } from "./thread-context.ts";

/** A platform's id (PlatformDescriptor.id): core knows platforms only as the data their packages describe. */
export type Platform = string;

/** Where, and in which thread, an answer goes. */
export interface Conversation {
  /** The channel, chat or room, in the platform's own id. */
  id: string;
  /** The thread to answer in; absent where the platform has none. */
  threadId?: string;
  /** The user message being answered, in the platform's own id. */
  replyToId: string;
  /** What the platform needs to reach the conversation (an endpoint, a bot id); opaque outside the adapter. */
  address?: Record<string, string>;
}

/** The message being answered opens its thread: nothing was said in it before, so there is nothing to read. */
export function startsThread({ threadId, replyToId }: Conversation): boolean {
  return threadId === replyToId;
}

export interface Author {
  id: string;
  name?: string;
  isBot: boolean;
  /** The message is our own bot's. Adapters ignore these; the flag is kept for the record. */
  isSelf: boolean;
}

/** The one normalized message type. Nothing after an adapter's normalize step knows a platform payload. */
export interface ChatEvent {
  platform: Platform;
  tenantId: string;
  workspaceId: string;
  /** The platform's delivery identity: one id per delivery source. */
  eventId: string;
  /** The identity of the user message itself: twins from different delivery sources share it. */
  messageKey: string;
  /**
   * Set where the platform gives no stable message id and `messageKey` is a fingerprint (its retries carry new
   * ids): the key then stands for one message only this long, so the same words sent again later are answered.
   */
  messageKeyWindowMs?: number;
  conversation: Conversation;
  author: Author;
  /** Text with the bot's mention removed. */
  text: string;
  /**
   * What the delivery itself carries of its thread (a quoted message), oldest first: shown to the agent where the
   * platform's thread cannot be read.
   */
  context?: ThreadMessage[];
  /** Epoch milliseconds when this instance received the delivery. */
  receivedAt: number;
}

/** What travels through the queue: the event as normalized, and the trace that queued it. */
export type QueuedEvent = ChatEvent & {
  /** The W3C trace context of the span that queued it (absent when nothing is traced): the worker continues it. */
  trace?: Record<string, string>;
};
