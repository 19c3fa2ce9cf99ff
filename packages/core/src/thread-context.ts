/** One message of a thread or room as its platform lists it. */
export interface ThreadMessage {
  /** The platform's id of the message. */
  id: string;
  /** Who wrote it: a display name where the platform gives one, else the platform's user id. */
  author: string;
  /** Written by a bot (ours included). */
  isBot: boolean;
  text: string;
}

/**
 * What the agent is told about the thread it was called into, when it has not been part of it: the messages read
 * from the platform, or why there are none.
 */
export type ThreadContext =
  | {
      status: "read";
      /** Oldest first, the message being answered left out. */
      messages: ThreadMessage[];
      /** Older messages left out to stay within the token bound. */
      omitted: number;
    }
  | { status: "unavailable"; reason: string };

/*
 * A rough count of the tokens a text costs, to bound the context without a round trip to a tokenizer: Claude's
 * tokenizer is not published for current models. Latin text runs near four characters a token; Japanese and other
 * scripts near one a character, which this counts in full so that the bound errs on the short side.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const char of text) {
    if (char.charCodeAt(0) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 4) + other;
}

/** The newest messages whose estimated tokens fit `maxTokens`, oldest first, and how many older ones were dropped. */
export function boundedMessages(
  messages: readonly ThreadMessage[],
  maxTokens: number,
): { messages: ThreadMessage[]; omitted: number } {
  const kept: ThreadMessage[] = [];
  let tokens = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as ThreadMessage;
    tokens += estimateTokens(`${message.author}: ${message.text}`) + 4;
    if (tokens > maxTokens) break;
    kept.unshift(message);
  }
  return { messages: kept, omitted: messages.length - kept.length };
}
