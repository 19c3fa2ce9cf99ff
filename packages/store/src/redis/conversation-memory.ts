import type { ConversationMemory, Turn } from "@resident/core";
import type { RedisClient } from "./connection.ts";
import { execAll } from "./exec-all.ts";
import { RedisPort, type RedisStoreOptions } from "./store-call.ts";

/** Thread memory on Redis: one list of JSON turns per thread, trimmed to `keep` and expiring with its TTL. */
export class RedisConversationMemory extends RedisPort implements ConversationMemory {
  constructor(client: RedisClient, options: RedisStoreOptions = {}) {
    super(client, options.health, options.prefix);
  }

  recent(conversationKey: string, limit: number): Promise<Turn[]> {
    return this.call("recent", async () => {
      const turns = await this.client.lrange(this.prefix + conversationKey, -limit, -1);
      return turns.map((turn) => JSON.parse(turn) as Turn);
    });
  }

  append(conversationKey: string, turns: Turn[], keep: number, ttlMs: number): Promise<void> {
    const key = this.prefix + conversationKey;
    return this.call("append", async () => {
      // A pipeline, not MULTI: a reader between the push and the trim sees at most the turns just pushed on top,
      // and recent() reads the newest few anyway. The trim goes out only once the push says the list is too long.
      const pushed = turns.map((turn) => JSON.stringify({ role: turn.role, text: turn.text }));
      const batch = this.client.pipeline();
      if (pushed.length > 0) batch.rpush(key, ...pushed);
      const [length] = (await execAll(batch.pexpire(key, ttlMs))) as number[];
      if (pushed.length === 0 || (length ?? 0) > keep) await this.client.ltrim(key, -keep, -1);
    });
  }
}
