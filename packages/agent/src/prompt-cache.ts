import type Anthropic from "@anthropic-ai/sdk";
import type { ConversationMessage } from "./conversation.ts";

const ephemeral = { type: "ephemeral" } as const;

/** The system prompt as one cacheable block: it is the same for every message of the workspace. */
export function cachedSystem(systemPrompt: string): Anthropic.TextBlockParam[] | undefined {
  return systemPrompt.trim() === "" ? undefined : [{ type: "text", text: systemPrompt, cache_control: ephemeral }];
}

/**
 * The conversation with a cache breakpoint at the end of the thread's history, the part that the next message of the
 * thread sends again unchanged: a long thread is read from the cache instead of paid in full each time. The current
 * message, last, is never marked. Prompts shorter than the model's minimum are simply not cached by the API.
 */
export function cachedConversation(messages: ConversationMessage[]): Anthropic.MessageParam[] {
  const stable = messages.length - 2;
  return messages.map((message, index) =>
    index === stable
      ? { role: message.role, content: [{ type: "text", text: message.content, cache_control: ephemeral }] }
      : message,
  );
}
