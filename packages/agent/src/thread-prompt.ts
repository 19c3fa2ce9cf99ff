import type Anthropic from "@anthropic-ai/sdk";
import type { ThreadContext } from "@resident/core";

/**
 * What the agent is told of the thread it was called into, as a system block after the (cached) system prompt: the
 * earlier messages, each on its own lines under its author, or that they could not be read and why.
 */
export function threadBlock(thread: ThreadContext | undefined): Anthropic.TextBlockParam[] {
  if (!thread) return [];
  if (thread.status === "unavailable") {
    return [
      {
        type: "text",
        text:
          `You were called into an existing thread, but its earlier messages could not be read (${thread.reason}). ` +
          "Answer from the message alone, and say briefly that you could not see the earlier messages if the answer may depend on them.",
      },
    ];
  }
  const omitted = thread.omitted > 0 ? `(${thread.omitted} older messages are left out.)\n` : "";
  const lines = thread.messages.map(
    (message) => `[${message.author}${message.isBot ? " (bot)" : ""}]\n${message.text}`,
  );
  return [
    {
      type: "text",
      text: `You were called into an existing thread. Its earlier messages, oldest first:\n${omitted}${lines.join("\n\n")}`,
    },
  ];
}
