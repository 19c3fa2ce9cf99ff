import type { UsageMeter } from "@resident/core";
import type { RedisClient } from "./connection.ts";
import { execAll } from "./exec-all.ts";
import { RedisPort, type RedisStoreOptions } from "./store-call.ts";

/**
 * UsageMeter on Redis: INCRBY and PEXPIRE per key in one MULTI, so every instance adds to the same count. The keys of
 * one add share a hash tag (core's usage keys carry `{tenantId}`), as a MULTI on Redis Cluster requires.
 */
export class RedisUsageMeter extends RedisPort implements UsageMeter {
  constructor(client: RedisClient, options: RedisStoreOptions = {}) {
    super(client, options.health, options.prefix);
  }

  add(counts: { key: string; by: number }[], ttlMs: number): Promise<void> {
    if (counts.length === 0) return Promise.resolve();
    return this.call("usage add", async () => {
      const batch = this.client.multi();
      for (const { key, by } of counts) batch.incrby(this.prefix + key, by).pexpire(this.prefix + key, ttlMs);
      await execAll(batch);
    });
  }

  read(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.call("usage read", async () =>
      (await this.client.mget(...keys.map((key) => this.prefix + key))).map((value) => Number(value ?? 0)),
    );
  }
}
