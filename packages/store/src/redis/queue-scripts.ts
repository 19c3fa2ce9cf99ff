import type { Result } from "ioredis";
import type { RedisClient } from "./connection.ts";

/*
 * The queue's writes that must land together. A script is one unit in the AOF too (a MULTI/EXEC of its effects,
 * which Redis drops whole if a crash cut it short), so after a restart a job's mark and its entry exist both or
 * neither: no mark can outlive the entry it stands for and refuse the job's id for good.
 *
 * Settling an entry starts with XACK and goes on only if it acked: an entry another consumer took over (its lock had
 * lapsed) and settled first is settled once, by whoever came first; a script ioredis sent again after a reconnect
 * changes nothing the second time. Times come from Redis (TIME), one clock for every instance.
 * They return integers or arrays only: Lua booleans convert differently under RESP2 and RESP3.
 */

const now = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) ";

/**
 * Lua that adds a job unless its id is known (its mark stands), leaving `added` true when it did; each argument
 * names where the script has that value (`KEYS[1]`, `ARGV[2]`). The admission script adds jobs with it too.
 */
export function addJob(at: { stream: string; mark: string; id: string; data: string }): string {
  return `local added = redis.call('SET', ${at.mark}, 'live', 'NX')
if added then redis.call('XADD', ${at.stream}, '*', 'id', ${at.id}, 'data', ${at.data}, 'attempt', '1') end
`;
}

const scripts = {
  /** KEYS: stream, mark · ARGV: job id, data → 1 added, 0 the id is known */
  rsdQueueAdd: {
    keys: 2,
    lua: `${addJob({ stream: "KEYS[1]", mark: "KEYS[2]", id: "ARGV[1]", data: "ARGV[2]" })}if added then return 1 end
return 0`,
  },
  /**
   * KEYS: stream, then one mark per entry · ARGV: group, then entry id, mark value, mark ttl ms per entry →
   * how many were settled here. The settled entries leave the stream, so that XLEN counts only the live ones.
   */
  rsdQueueSettle: {
    lua: `local acked = {}
for i = 2, #KEYS do
  local a = (i - 2) * 3 + 2
  if redis.call('XACK', KEYS[1], ARGV[1], ARGV[a]) == 1 then
    redis.call('SET', KEYS[i], ARGV[a + 1], 'PX', ARGV[a + 2])
    acked[#acked + 1] = ARGV[a]
  end
end
if #acked > 0 then redis.call('XDEL', KEYS[1], unpack(acked)) end
return #acked`,
  },
  /** KEYS: stream, delayed · ARGV: group, entry id, delay ms, the retry (JSON id, data, attempt) → 1 moved, 0 settled elsewhere */
  rsdQueueRetry: {
    keys: 2,
    lua: `if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('XDEL', KEYS[1], ARGV[2])
${now}redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[4])
return 1`,
  },
  /**
   * KEYS: stream, delayed · ARGV: at most this many → ms until the next retry is due (0: more are due now, -1: none).
   * Redis has no delayed stream entries: retries wait in a sorted set by due time, and this moves the due ones into
   * the stream as new entries (their attempt carried over).
   */
  rsdQueuePromote: {
    keys: 2,
    lua: `${now}local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, member in ipairs(due) do
  local job = cjson.decode(member)
  redis.call('XADD', KEYS[1], '*', 'id', job.id, 'data', job.data, 'attempt', tostring(job.attempt))
  redis.call('ZREM', KEYS[2], member)
end
if #due == tonumber(ARGV[1]) then return 0 end
local next = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if #next == 0 then return -1 end
return math.max(1, tonumber(next[2]) - now)`,
  },
  /**
   * KEYS: stream · ARGV: group, consumer, entry ids → how many were renewed. Resets the idle time of the entries
   * this consumer has in hand and still owns, one by one: an entry another consumer took over stays with it, and an
   * entry delivered to this consumer whose reply it never read (lost when Redis died) ages until it is taken over.
   */
  rsdQueueRenew: {
    keys: 1,
    lua: `local renewed = 0
for i = 3, #ARGV do
  if #redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1, ARGV[2]) == 1 then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    renewed = renewed + 1
  end
end
return renewed`,
  },
  /**
   * KEYS: stream · ARGV: group, idle ms, the calling consumer → how many consumers were forgotten. Every instance
   * reads under a name of its own (host, pid, a random part), so each restart leaves its name in the group. A name
   * with nothing pending that has not read for `idle` ms is gone: deleted in one step with the check, so that no
   * entry can become pending for it in between (an entry pending for a deleted consumer would leave the group).
   */
  rsdQueueForget: {
    keys: 1,
    lua: `local forgotten = 0
for _, consumer in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local field = {}
  for i = 1, #consumer, 2 do field[consumer[i]] = consumer[i + 1] end
  if field.pending == 0 and field.idle > tonumber(ARGV[2]) and field.name ~= ARGV[3] then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], field.name)
    forgotten = forgotten + 1
  end
end
return forgotten`,
  },
  /** KEYS: stream, delayed → jobs waiting, running, or delayed */
  rsdQueueDepth: { keys: 2, lua: "return redis.call('XLEN', KEYS[1]) + redis.call('ZCARD', KEYS[2])" },
};

declare module "ioredis" {
  interface RedisCommander<Context> {
    rsdQueueAdd(stream: string, mark: string, id: string, data: string): Result<number, Context>;
    rsdQueueSettle(keyCount: number, ...keysThenArgs: (string | number)[]): Result<number, Context>;
    rsdQueueRetry(
      stream: string,
      delayed: string,
      group: string,
      entry: string,
      delayMs: number,
      retry: string,
    ): Result<number, Context>;
    rsdQueuePromote(stream: string, delayed: string, limit: number): Result<number, Context>;
    rsdQueueRenew(stream: string, group: string, consumer: string, ...entries: string[]): Result<number, Context>;
    rsdQueueForget(stream: string, group: string, idleMs: number, consumer: string): Result<number, Context>;
    rsdQueueDepth(stream: string, delayed: string): Result<number, Context>;
  }
}

/** Registers the scripts on the client; ioredis then sends them by SHA (EVALSHA, EVAL once after NOSCRIPT). */
export function defineQueueScripts(client: RedisClient): void {
  for (const [name, script] of Object.entries(scripts)) {
    client.defineCommand(name, "keys" in script ? { numberOfKeys: script.keys, lua: script.lua } : script);
  }
}
