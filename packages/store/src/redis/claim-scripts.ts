import type { Result } from "ioredis";
import type { RedisClient } from "./connection.ts";

/*
 * Compare-and-set on the claim token: each script acts only while the stored value still starts with the caller's
 * `i:<token>:` prefix (see claim-record.ts), so an owner whose lease passed to someone else changes nothing.
 * Each touches one key, so they run on Redis Cluster wherever that key lives. They return integers only: Lua
 * booleans convert differently under RESP2 and RESP3.
 */

const held =
  "local v = redis.call('GET', KEYS[1]) if not v or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then return 0 end ";

const scripts = {
  /** KEYS: claim · ARGV: held prefix, lease ms → 1 renewed, 0 not held */
  rsdExtendClaim: `${held}return redis.call('PEXPIRE', KEYS[1], ARGV[2])`,
  /** KEYS: claim · ARGV: held prefix, done record, ttl ms → 1 committed, 0 not held */
  rsdCommitClaim: `${held}redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1`,
  /** KEYS: claim · ARGV: held prefix → 1 released, 0 not held */
  rsdReleaseClaim: `${held}return redis.call('DEL', KEYS[1])`,
};

declare module "ioredis" {
  interface RedisCommander<Context> {
    rsdExtendClaim(key: string, heldBy: string, leaseMs: number): Result<number, Context>;
    rsdCommitClaim(key: string, heldBy: string, record: string, ttlMs: number): Result<number, Context>;
    rsdReleaseClaim(key: string, heldBy: string): Result<number, Context>;
  }
}

/** Registers the scripts on the client; ioredis then sends them by SHA (EVALSHA, EVAL once after NOSCRIPT). */
export function defineClaimScripts(client: RedisClient): void {
  for (const [name, lua] of Object.entries(scripts)) client.defineCommand(name, { numberOfKeys: 1, lua });
}
