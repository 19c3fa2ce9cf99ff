import { vi } from "vitest";
import {
  connectRedis,
  RedisCache,
  RedisChangeFeed,
  RedisClaimStore,
  type RedisClient,
  RedisConversationMemory,
  RedisRateLimiter,
  RedisStatsStore,
  RedisUsageMeter,
} from "../../src/index.ts";
import type { StoreBackend } from "./store-contract.ts";

/** The Redis ports as two instances of the service would build them against one Redis (standalone or Cluster). */
export async function redisBackend(url: string): Promise<StoreBackend> {
  const clients: RedisClient[] = [];
  const connect = (role: "command" | "subscriber") => {
    const client = connectRedis(url, role);
    clients.push(client);
    return client;
  };
  const command = connect("command");
  const claims = new RedisClaimStore(command);
  const feeds: [RedisChangeFeed, RedisChangeFeed] = [
    new RedisChangeFeed(command, connect("subscriber")),
    new RedisChangeFeed(connect("command"), connect("subscriber")),
  ];
  // Fail-fast connections refuse commands until they are ready.
  await vi.waitFor(() => claims.ping(), { timeout: 10_000 });
  return {
    claims,
    memory: new RedisConversationMemory(command),
    stats: new RedisStatsStore(command),
    limiter: new RedisRateLimiter(command),
    usage: new RedisUsageMeter(command),
    cache: new RedisCache(command),
    feeds,
    close: async () => {
      await Promise.all(clients.map((client) => client.quit()));
    },
  };
}
