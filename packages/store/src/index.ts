export { backoffDelay } from "./backoff.ts";
export { ExpiringMap } from "./memory/expiring-map.ts";
export { MemoryChangeFeed } from "./memory/memory-change-feed.ts";
export { MemoryQueue, type MemoryQueueOptions } from "./memory/memory-queue.ts";
export { MemoryRateLimiter } from "./memory/memory-rate-limiter.ts";
export { MemoryStore, type MemoryStoreOptions } from "./memory/memory-store.ts";
