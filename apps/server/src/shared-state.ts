import type {
  ChangeFeed,
  ClaimStore,
  ConversationMemory,
  JobQueue,
  QueuedEvent,
  RateLimiter,
  StatsStore,
} from "@resident/core";
import { MemoryChangeFeed, MemoryQueue, MemoryRateLimiter, MemoryStore } from "@resident/store";
import type { Config } from "./config.ts";

/** Everything the instances of one deployment share: Redis in a cluster, this process's memory on its own. */
export interface SharedState {
  claims: ClaimStore;
  memory: ConversationMemory;
  stats: StatsStore;
  queue: JobQueue<QueuedEvent>;
  changeFeed: ChangeFeed;
  limiter: RateLimiter;
  ping(): Promise<unknown>;
  close(): Promise<void>;
}

/** The single-instance state used without REDIS_URL. */
export function memoryState(config: Config): SharedState {
  const store = new MemoryStore();
  return {
    claims: store,
    memory: store,
    stats: store,
    queue: new MemoryQueue<QueuedEvent>({ concurrency: config.workerConcurrency }),
    changeFeed: new MemoryChangeFeed(),
    limiter: new MemoryRateLimiter(),
    ping: async () => true,
    close: async () => store.close(),
  };
}
