import { type ConversationMemory, type Turn, TurnBatch } from "@resident/core";
import { Cluster } from "ioredis";
import type { RedisClient } from "./connection.ts";
import { execEach } from "./exec-all.ts";
import { RedisPort, type RedisStoreOptions } from "./store-call.ts";

interface Append {
  key: string;
  pushed: string[];
  keep: number;
  ttlMs: number;
}

/**
 * Thread memory on Redis: one list of JSON turns per thread, trimmed to `keep` and expiring with its TTL. On Redis
 * standalone the appends of one event-loop turn go out as one pipeline (an instance's jobs commit together, and each
 * then appends its thread's turns): one socket write and one reply to wake up for, where each append was its own. A
 * Cluster takes a pipeline's keys from one slot only, so there each append goes alone.
 */
export class RedisConversationMemory extends RedisPort implements ConversationMemory {
  private readonly appends: TurnBatch<Append, Error | undefined> | undefined;

  constructor(client: RedisClient, options: RedisStoreOptions = {}) {
    super(client, options.health, options.prefix);
    if (!(client instanceof Cluster)) this.appends = new TurnBatch((calls) => this.appendAll(calls));
  }

  recent(conversationKey: string, limit: number): Promise<Turn[]> {
    return this.call("recent", async () => {
      const turns = await this.client.lrange(this.prefix + conversationKey, -limit, -1);
      return turns.map((turn) => JSON.parse(turn) as Turn);
    });
  }

  append(conversationKey: string, turns: Turn[], keep: number, ttlMs: number): Promise<void> {
    const pushed = turns.map((turn) => JSON.stringify({ role: turn.role, text: turn.text }));
    const append = { key: this.prefix + conversationKey, pushed, keep, ttlMs };
    return this.call("append", async () => {
      const failed = this.appends ? await this.appends.call(append) : (await this.appendAll([append]))[0];
      if (failed) throw failed;
    });
  }

  /**
   * A pipeline, not MULTI: a reader between a push and its trim sees at most the turns just pushed on top, and
   * recent() reads the newest few anyway. A trim goes out only for the lists the push left too long, in a second
   * pipeline. A command Redis refuses fails its own append only; a lost connection, the whole pipeline.
   */
  private async appendAll(appends: Append[]): Promise<(Error | undefined)[]> {
    const pushes = this.client.pipeline();
    for (const { key, pushed, ttlMs } of appends) {
      if (pushed.length > 0) pushes.rpush(key, ...pushed);
      pushes.pexpire(key, ttlMs);
    }
    const replies = await execEach(pushes);
    const outcomes: (Error | undefined)[] = [];
    const trims = this.client.pipeline();
    const trimmed: number[] = [];
    let at = 0;
    appends.forEach(({ key, pushed, keep }, i) => {
      const next = at + (pushed.length > 0 ? 2 : 1);
      const own = replies.slice(at, next);
      at = next;
      const failed = own.find(([error]) => error)?.[0] ?? undefined;
      outcomes.push(failed);
      if (!failed && (pushed.length === 0 || (own[0]?.[1] as number) > keep)) {
        trims.ltrim(key, -keep, -1);
        trimmed.push(i);
      }
    });
    if (trimmed.length > 0) {
      (await execEach(trims)).forEach(([error], j) => {
        if (error) outcomes[trimmed[j] as number] = error;
      });
    }
    return outcomes;
  }
}
