import type { SharedCache } from "@resident/core";
import type { RedisClient } from "./connection.ts";
import { RedisPort, type RedisStoreOptions } from "./store-call.ts";

/** SharedCache on Redis: a key per value under `cache:`, expiring by PX. */
export class RedisCache extends RedisPort implements SharedCache {
  constructor(client: RedisClient, options: RedisStoreOptions = {}) {
    super(client, options.health, `${options.prefix ?? "rsd:"}cache:`);
  }

  get(key: string): Promise<string | undefined> {
    return this.call("cache get", async () => (await this.client.get(this.prefix + key)) ?? undefined);
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    return this.call("cache set", async () => {
      await this.client.set(this.prefix + key, value, "PX", Math.max(1, Math.ceil(ttlMs)));
    });
  }
}
