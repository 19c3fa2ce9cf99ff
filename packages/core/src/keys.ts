import type { ChatEvent, QueuedEvent } from "./chat-event.ts";

/*
 * Every key is scoped by workspace, so two tenants can never collide. The platform's own ids may contain any
 * character; the workspace id is ours and never contains ':'.
 */

/** One delivery identity: stops redeliveries of the same event. */
export function eventKey(event: Pick<ChatEvent, "workspaceId" | "eventId">): string {
  return `event:${event.workspaceId}:${event.eventId}`;
}

/**
 * What the event gate admits once. A message whose key is stable is admitted once whatever delivers it, so its twins
 * (one message as app_mention and as message, as mention_to_me and as message_created) fold into one job before the
 * job exists. A fingerprint stands for its message only for a window shorter than the gate keeps a delivery, so those
 * are admitted per delivery and their twins folded by the reply ledger; a feedback click has no message key.
 */
export function admissionKey(
  delivery: Pick<ChatEvent, "workspaceId" | "eventId"> & Partial<Pick<ChatEvent, "messageKey" | "messageKeyWindowMs">>,
): string {
  if (delivery.messageKey === undefined || delivery.messageKeyWindowMs !== undefined) return eventKey(delivery);
  return `message:${delivery.workspaceId}:${delivery.messageKey}`;
}

/** One user message: stops twins that arrive with different event ids. */
export function replyKey(event: Pick<QueuedEvent, "workspaceId" | "messageKey">): string {
  return `reply:${event.workspaceId}:${event.messageKey}`;
}

/** Set while a user message's reply is being posted: left behind by a holder that died mid-send. */
export function sendingKey(event: Pick<QueuedEvent, "workspaceId" | "messageKey">): string {
  return `sending:${event.workspaceId}:${event.messageKey}`;
}

/** The answer written for a user message, kept before it is sent so that a retry or a takeover posts the same text. */
export function answerKey(event: Pick<QueuedEvent, "workspaceId" | "messageKey">): string {
  return `answer:${event.workspaceId}:${event.messageKey}`;
}

/** One conversation thread's memory. */
export function conversationKey(event: Pick<QueuedEvent, "workspaceId" | "conversation">): string {
  const { id, threadId } = event.conversation;
  return `conversation:${event.workspaceId}:${id}:${threadId ?? ""}`;
}

/** The agent's turn at one step of its tool-use loop for a user message: replayed by a retry or a takeover. */
export function agentStepKey(event: Pick<QueuedEvent, "workspaceId" | "messageKey">, step: number): string {
  return `step:${event.workspaceId}:${event.messageKey}:${step}`;
}

/** The outcome of one tool call (the `index`-th of a step) for a user message: a tool is called once per message. */
export function toolCallKey(
  event: Pick<QueuedEvent, "workspaceId" | "messageKey">,
  step: number,
  index: number,
): string {
  return `toolcall:${event.workspaceId}:${event.messageKey}:${step}:${index}`;
}

/** The platform id of a user message's streamed reply, recorded at its first write so a takeover finishes it. */
export function streamKey(event: Pick<QueuedEvent, "workspaceId" | "messageKey">): string {
  return `stream:${event.workspaceId}:${event.messageKey}`;
}
