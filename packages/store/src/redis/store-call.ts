import { CorruptRecordError, StoreUnavailableError } from "@resident/core";
import { ReplyError } from "ioredis";
import type { RedisClient } from "./connection.ts";
import type { RedisHealth } from "./redis-health.ts";

export interface RedisStoreOptions {
  /** Prepended to every key. Default `rsd:`. */
  prefix?: string;
  /** The breaker that tells whether Redis is up; while it says down, every method rejects at once. */
  health?: RedisHealth;
}

/** Server errors that mean "not now" (loading, failing over, busy) rather than "not this". */
const transientReply = /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY|NOREPLICAS|MOVED|ASK) /;

/** Errors about a record itself: it is unreadable, or Redis refused the command on it. Redis answered. */
function isDataError(error: unknown): boolean {
  if (error instanceof CorruptRecordError || error instanceof SyntaxError) return true;
  return error instanceof ReplyError && !transientReply.test((error as Error).message);
}

/**
 * Runs one Redis operation. Redis not answering (refused, reset, timed out, loading) becomes core's
 * StoreUnavailableError, and counts towards an outage in `health`; an unreadable record or a refused command is a
 * data error (CorruptRecordError), which is no reason to fail over. While `health` says Redis is down, rejects at
 * once without a round trip.
 */
export function storeCall<T>(operation: string, call: () => Promise<T>, health?: RedisHealth): Promise<T> {
  if (!health) return translated(operation, call);
  return health.call(
    () => translated(operation, call),
    () => new StoreUnavailableError(`redis ${operation} skipped: Redis is down`),
  );
}

async function translated<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (!isDataError(error)) throw new StoreUnavailableError(`redis ${operation} failed: ${reason}`, { cause: error });
    throw error instanceof CorruptRecordError
      ? error
      : new CorruptRecordError(`redis ${operation}: ${reason}`, { cause: error });
  }
}

/** What every Redis store shares: the fail-fast client, the key prefix, and calls made through `storeCall`. */
export abstract class RedisPort {
  protected readonly prefix: string;

  constructor(
    protected readonly client: RedisClient,
    private readonly health?: RedisHealth,
    prefix = "rsd:",
  ) {
    this.prefix = prefix;
  }

  protected call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return storeCall(operation, run, this.health);
  }
}
