import type { Turn } from "@resident/core";

export interface ConversationMessage {
  role: "user" | "assistant";
  content: string;
}

/** Said in place of a message with no text (a bare mention): the Messages API rejects empty content. */
export const emptyMessageText = "(The message had no text.)";

/**
 * The Messages API wants a conversation that starts with a user turn and alternates roles. Thread memory can hold
 * anything — a window cut mid-exchange, a message that never got its answer — so we normalize it:
 * - turns with no text are dropped (the API rejects empty content);
 * - assistant turns before the first user turn are dropped: an answer whose question fell out of the window;
 * - consecutive turns of one role are merged into one, joined by a blank line, so nothing said is lost;
 * - the current message closes the conversation as a user turn, merged into a trailing unanswered user turn.
 */
export function toConversation(history: readonly Turn[], current: string): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  const now: Turn = { role: "user", text: current.trim() === "" ? emptyMessageText : current };
  for (const turn of [...history, now]) {
    if (turn.text.trim() === "") continue;
    const last = messages.at(-1);
    if (!last && turn.role === "assistant") continue;
    if (last?.role === turn.role) last.content = `${last.content}\n\n${turn.text}`;
    else messages.push({ role: turn.role, content: turn.text });
  }
  return messages;
}
