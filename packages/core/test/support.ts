import type { ChatEvent } from "../src/chat-event.ts";

let sequence = 0;

/** A ChatEvent as an adapter would produce it; ids are fresh per call unless given. */
export function chatEvent(overrides: Partial<ChatEvent> = {}): ChatEvent {
  sequence++;
  return {
    platform: "slack",
    tenantId: "tn_a",
    workspaceId: "ws_a",
    eventId: `Ev${sequence}`,
    messageKey: `C1:${sequence}.0001`,
    conversation: { id: "C1", threadId: `${sequence}.0001`, replyToId: `${sequence}.0001` },
    author: { id: "U1", isBot: false, isSelf: false },
    text: "hello",
    receivedAt: Date.now(),
    ...overrides,
  };
}
