import { MemoryCache, MemoryClaimStore, MemoryConversationMemory, MemoryUsageMeter } from "@resident/core";
import { MemoryChangeFeed, MemoryRateLimiter, MemoryStatsStore } from "../src/index.ts";
import { storeContract } from "./support/store-contract.ts";

storeContract("memory", async () => {
  const feed = new MemoryChangeFeed();
  return {
    claims: new MemoryClaimStore(),
    memory: new MemoryConversationMemory(),
    stats: new MemoryStatsStore(),
    limiter: new MemoryRateLimiter(),
    usage: new MemoryUsageMeter(),
    cache: new MemoryCache(),
    feeds: [feed, feed],
    close: async () => {},
  };
});
