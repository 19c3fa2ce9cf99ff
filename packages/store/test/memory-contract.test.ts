import {
  MemoryCache,
  MemoryClaimStore,
  MemoryConversationMemory,
  MemoryQueue,
  MemoryQueuedAdmission,
  MemoryUsageMeter,
} from "@resident/core";
import { MemoryChangeFeed, MemoryRateLimiter, MemoryStatsStore } from "../src/index.ts";
import { admissionContract } from "./support/admission-contract.ts";
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

admissionContract("memory", async () => {
  const claims = new MemoryClaimStore();
  return {
    claims,
    queue: async () => {
      const queue = new MemoryQueue<{ n: number; text: string }>();
      return { queue, admission: new MemoryQueuedAdmission(claims, queue) };
    },
    close: async () => {},
  };
});
