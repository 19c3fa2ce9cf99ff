export interface Turn {
  role: "user" | "assistant";
  text: string;
}

/** The recent turns of one conversation thread, shared by every instance and bounded in length and age. */
export interface ConversationMemory {
  recent(conversationKey: string, limit: number): Promise<Turn[]>;
  append(conversationKey: string, turns: Turn[], keep: number, ttlMs: number): Promise<void>;
}
