import {
  type ChangeFeed,
  type ClaimStore,
  type ConversationMemory,
  type JobQueue,
  type Logger,
  MemoryCache,
  MemoryClaimStore,
  MemoryConversationMemory,
  MemoryQueue,
  MemoryQueuedAdmission,
  MemoryUsageMeter,
  type QueuedAdmission,
  type QueuedEvent,
  type RateLimiter,
  type SharedCache,
  type StatsStore,
  type UsageMeter,
} from "@resident/core";
import {
  connectRedis,
  FailoverRateLimiter,
  MemoryChangeFeed,
  MemoryRateLimiter,
  MemoryStatsStore,
  RedisCache,
  RedisChangeFeed,
  RedisClaimStore,
  type RedisClient,
  RedisConversationMemory,
  RedisHealth,
  RedisQueue,
  RedisRateLimiter,
  type RedisRole,
  RedisStatsStore,
  RedisUsageMeter,
  redisQueuedAdmission,
} from "@resident/store";
import type { Config } from "./config.ts";

/** Everything the instances of one deployment share: Redis in a cluster, this process's memory on its own. */
export interface SharedState {
  claims: ClaimStore;
  memory: ConversationMemory;
  stats: StatsStore;
  queue: JobQueue<QueuedEvent>;
  /** The gate's claim and the enqueue in one step, where the store can (not on Redis Cluster). */
  admission?: QueuedAdmission<QueuedEvent>;
  changeFeed: ChangeFeed;
  limiter: RateLimiter;
  /** LLM tokens per tenant and workspace per day, for budgets. */
  usage: UsageMeter;
  /** Platform reads (thread context) kept for a while. */
  cache: SharedCache;
  /** The fail-fast command connection, for parts that speak Redis themselves; absent without REDIS_URL. */
  redis?: RedisClient;
  ping(): Promise<unknown>;
  /** Whether the store answers, as the ack path sees it (Redis' breaker): while not, the standby lane takes over. */
  up(): boolean;
  close(): Promise<void>;
}

/** The single-instance state used without REDIS_URL. */
export function memoryState(config: Config): SharedState {
  const claims = new MemoryClaimStore();
  const queue = new MemoryQueue<QueuedEvent>({ concurrency: config.workerConcurrency, attempts: config.jobAttempts });
  return {
    claims,
    memory: new MemoryConversationMemory(),
    stats: new MemoryStatsStore(),
    queue,
    admission: new MemoryQueuedAdmission(claims, queue),
    changeFeed: new MemoryChangeFeed(),
    limiter: new MemoryRateLimiter(),
    usage: new MemoryUsageMeter(),
    cache: new MemoryCache(),
    ping: async () => true,
    up: () => true,
    close: async () => {},
  };
}

/** How long start-up waits for Redis before serving anyway (deliveries then fail over by each fail mode). */
const startupWaitMs = 5_000;

/**
 * State shared through Redis, one connection per role (see @resident/store's connectRedis): the ack path's
 * connections fail fast while Redis is away, the worker's and the subscriber's wait for it.
 */
export async function redisState(config: Config & { redisUrl: string }, logger: Logger): Promise<SharedState> {
  const connect = (role: RedisRole) =>
    connectRedis(config.redisUrl, role, { name: config.instanceId, onError: throttled(logger, role) });
  const command = connect("command");
  const producer = connect("producer");
  const subscriber = connect("subscriber");
  const worker = config.role === "web" ? undefined : connect("worker");
  if (!(await ready(command, startupWaitMs))) {
    logger.warn({}, "Redis is not reachable yet: serving anyway; each workspace's fail mode decides meanwhile");
  }
  const health = new RedisHealth(command, {
    onChange: (up, reason) =>
      up
        ? logger.warn({ reason }, "Redis is back: taking deliveries in through Redis again")
        : logger.warn({ reason }, "Redis is unreachable: taking deliveries in through PostgreSQL"),
  });
  const claims = new RedisClaimStore(command, { health });
  const queue = new RedisQueue<QueuedEvent>({
    producer,
    health,
    worker,
    concurrency: config.workerConcurrency,
    attempts: config.jobAttempts,
    lockDurationMs: config.jobLockMs,
    stalledIntervalMs: config.jobLockMs / 2,
    onError: throttled(logger, "queue"),
  });
  return {
    claims,
    memory: new RedisConversationMemory(command, { health }),
    stats: new RedisStatsStore(command, { health }),
    queue,
    admission: redisQueuedAdmission(producer, queue, { health }),
    changeFeed: new RedisChangeFeed(command, subscriber, { onError: throttled(logger, "change feed") }),
    limiter: new FailoverRateLimiter(new RedisRateLimiter(command), new MemoryRateLimiter()),
    usage: new RedisUsageMeter(command, { health }),
    cache: new RedisCache(command, { health }),
    redis: command,
    // Ready means both halves of the ack path answer: the gate's connection and the queue's.
    ping: () => Promise.all([claims.ping(), producer.ping()]),
    up: () => health.up,
    async close() {
      health.close();
      for (const client of [command, producer, subscriber, worker]) client?.disconnect();
    },
  };
}

function ready(client: RedisClient, timeoutMs: number): Promise<boolean> {
  if (client.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    client.once("ready", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** A Redis outage makes every connection fail on each reconnect attempt; one line per part every 30 s is enough. */
function throttled(logger: Logger, part: string): (error: unknown) => void {
  let last = 0;
  return (error) => {
    if (Date.now() - last < 30_000) return;
    last = Date.now();
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn({ part, err: reason }, "Redis connection error (repeats are suppressed for 30 s)");
  };
}
