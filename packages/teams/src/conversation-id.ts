/** A Teams conversation id split into the chat or channel and, in a channel, the reply chain's root post. */
export interface ConversationParts {
  /** The 1:1 chat, group chat or channel, without any `;messageid=`. */
  base: string;
  /** The post a channel reply chain hangs from (`19:…@thread.tacv2;messageid=<root>`). */
  threadRootId?: string;
}

export function conversationParts(conversationId: string): ConversationParts {
  const match = /^(.*);messageid=([^;]+)$/.exec(conversationId);
  if (!match?.[1] || !match[2]) return { base: conversationId };
  return { base: match[1], threadRootId: match[2] };
}
