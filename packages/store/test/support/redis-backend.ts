import { vi } from "vitest";
import { connectRedis, RedisChangeFeed, type RedisClient, RedisRateLimiter, RedisStore } from "../../src/index.ts";
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
  const store = new RedisStore(command);
  const feeds: [RedisChangeFeed, RedisChangeFeed] = [
    new RedisChangeFeed(command, connect("subscriber")),
    new RedisChangeFeed(connect("command"), connect("subscriber")),
  ];
  // Fail-fast connections refuse commands until they are ready.
  await vi.waitFor(() => store.ping(), { timeout: 10_000 });
  return {
    store,
    limiter: new RedisRateLimiter(command),
    feeds,
    close: async () => {
      await Promise.all(clients.map((client) => client.quit()));
    },
  };
}
