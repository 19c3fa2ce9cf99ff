import { MemoryChangeFeed, MemoryRateLimiter, MemoryStore } from "../src/index.ts";
import { storeContract } from "./support/store-contract.ts";

storeContract("memory", async () => {
  const store = new MemoryStore();
  const feed = new MemoryChangeFeed();
  return {
    store,
    limiter: new MemoryRateLimiter(),
    feeds: [feed, feed],
    close: async () => store.close(),
  };
});
