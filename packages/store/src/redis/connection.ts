import { backoffDelay } from "@resident/core";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import { parseRedisUrl } from "./redis-url.ts";

export type RedisClient = Redis | Cluster;

/**
 * What a connection is for decides how it behaves while Redis is away:
 * - `command` (the store, the rate limiter, publishing changes) and `producer` (enqueue) fail fast: no offline
 *   queue, a command in flight when the socket drops is rejected at once, every command is bounded by a timeout
 *   and a silent socket is torn down — so the ack path answers 503 or fails open within milliseconds. They do
 *   not auto-pipeline: ioredis builds a whole Pipeline (and a deferred flush) for every command that finds none
 *   pending, which at a steady rate is nearly every command, so it cost the ack ~16 % more CPU and ~1.8× the
 *   allocations (a scavenge a second per instance) for writes that rarely had anything to share
 *   (infra/bench/JOURNAL.md, "Where the tail came from").
 * - `worker` (the queue's consumers, whose settlements must land once Redis is back) and `subscriber` (the change
 *   feed) wait: commands queue until Redis is back, subscriptions are renewed after every reconnect.
 * Every role keeps reconnecting in the background forever, after a failed first connection too.
 */
export type RedisRole = "command" | "producer" | "worker" | "subscriber";

export interface RedisConnectionOptions {
  /** Bound on each command of a fail-fast connection. Default 1000 ms. */
  commandTimeoutMs?: number;
  /** Longest pause between reconnection attempts. Default 2000 ms. */
  maxReconnectDelayMs?: number;
  /** Connection errors, one per failed reconnection attempt; unheard, ioredis prints them to the console. */
  onError?: (error: Error) => void;
  /** Added to the connection's name in CLIENT LIST (`resident:<role>:<name>`). */
  name?: string;
}

/** Builds the ioredis client for one role from REDIS_URL (see parseRedisUrl for the forms it takes). */
export function connectRedis(url: string, role: RedisRole, options: RedisConnectionOptions = {}): RedisClient {
  const failFast = role === "command" || role === "producer";
  const commandTimeout = options.commandTimeoutMs ?? 1000;
  const maxDelay = options.maxReconnectDelayMs ?? 2000;
  const reconnectDelay = (times: number) => backoffDelay(times, 50, maxDelay);
  const perConnection: RedisOptions = {
    connectionName: ["resident", role, options.name].filter(Boolean).join(":"),
    connectTimeout: 2000,
    maxRetriesPerRequest: failFast ? 0 : null,
    ...(failFast && { commandTimeout, socketTimeout: 2 * commandTimeout }),
  };

  const target = parseRedisUrl(url);
  const client =
    target.kind === "standalone"
      ? new Redis(target.url, {
          ...perConnection,
          enableOfflineQueue: !failFast,
          retryStrategy: reconnectDelay,
        })
      : new Cluster(target.nodes, {
          enableOfflineQueue: !failFast,
          clusterRetryStrategy: reconnectDelay,
          redisOptions: {
            ...perConnection,
            username: target.username,
            password: target.password,
            ...(target.tls && { tls: {} }),
          },
        });
  // Without a listener ioredis prints every failed reconnection; callers learn of outages from rejected commands
  // and ping(), and pass onError to log them.
  const onError = options.onError ?? (() => {});
  client.on("error", onError);
  if (client instanceof Cluster) client.on("node error", onError);
  return client;
}
