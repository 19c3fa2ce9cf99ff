import type { ConversationMemory, Turn } from "../ports/conversation-memory.ts";
import { expiringCache } from "./expiring-cache.ts";

/** Thread memory in one process: the fail-open lane's, and `npm start` without REDIS_URL. */
export class MemoryConversationMemory implements ConversationMemory {
  private readonly threads;

  constructor(now: () => number = Date.now) {
    this.threads = expiringCache<Turn[]>(now);
  }

  async recent(conversationKey: string, limit: number): Promise<Turn[]> {
    return (this.threads.peek(conversationKey) ?? []).slice(-limit);
  }

  async append(conversationKey: string, turns: Turn[], keep: number, ttlMs: number): Promise<void> {
    const kept = [...(this.threads.peek(conversationKey) ?? []), ...turns].slice(-keep);
    this.threads.set(conversationKey, kept, { ttl: ttlMs });
  }
}
