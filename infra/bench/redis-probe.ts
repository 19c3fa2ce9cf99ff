import { connectRedis, type RedisClient } from "@resident/store";

/** Calls per command name, from INFO commandstats (commands run inside Lua scripts and MULTI blocks included). */
export type CommandCounts = Map<string, number>;

export interface RedisSnapshot {
  at: number;
  commands: CommandCounts;
  usedMemory: number;
  keys: number;
}

/** Commands this probe itself sends; left out of every delta. */
const ownCommands = new Set(["info", "dbsize"]);

/** Reads Redis' own counters from outside the service: INFO commandstats and memory, DBSIZE, and a key audit. */
export class RedisProbe {
  readonly client: RedisClient;

  constructor(url: string) {
    // The `worker` role waits for the connection instead of refusing commands issued before it is up.
    this.client = connectRedis(url, "worker", { name: "bench-probe" });
  }

  async snapshot(): Promise<RedisSnapshot> {
    const [stats, memory, keys] = await Promise.all([
      this.client.info("commandstats"),
      this.client.info("memory"),
      this.client.dbsize(),
    ]);
    const commands: CommandCounts = new Map();
    for (const match of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      commands.set(match[1] as string, Number(match[2]));
    }
    const usedMemory = Number(/^used_memory:(\d+)/m.exec(memory)?.[1] ?? 0);
    return { at: performance.now(), commands, usedMemory, keys };
  }

  /** The queue's live jobs (its stream's entries) and delayed retries: how much the workers still have to do. */
  async queueDepth(): Promise<number> {
    const [live, delayed] = await Promise.all([
      this.client.xlen(`${queuePrefix}stream`),
      this.client.zcard(`${queuePrefix}delayed`),
    ]);
    return live + delayed;
  }

  /** Every key with its remaining TTL (ms; -1 none) and type, by SCAN, read in pipelines. */
  async audit(sampleBytesPerPattern = 25): Promise<KeyAudit> {
    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await this.client.scan(cursor, "COUNT", 1000);
      cursor = next;
      found.push(...batch);
    } while (cursor !== "0");
    const patterns = new Map<string, PatternStats>();
    for (let i = 0; i < found.length; i += 500) {
      const slice = found.slice(i, i + 500);
      const pipeline = this.client.pipeline();
      for (const key of slice) pipeline.pttl(key).type(key);
      const replies = (await pipeline.exec()) ?? [];
      slice.forEach((key, j) => {
        const ttl = Number(replies[2 * j]?.[1] ?? -2);
        const type = String(replies[2 * j + 1]?.[1] ?? "none");
        if (ttl === -2) return; // expired between SCAN and PTTL
        const { pattern, owner } = classify(key);
        const stats = patterns.get(pattern) ?? {
          pattern,
          owner,
          type,
          count: 0,
          withoutTtl: 0,
          examplesWithoutTtl: [],
          sampled: [],
          bytes: 0,
          ttlSumMs: 0,
          ttlMaxMs: 0,
        };
        stats.count++;
        if (ttl > 0) {
          stats.ttlSumMs += ttl;
          stats.ttlMaxMs = Math.max(stats.ttlMaxMs, ttl);
        }
        if (ttl === -1) {
          stats.withoutTtl++;
          if (stats.examplesWithoutTtl.length < 3) stats.examplesWithoutTtl.push(key);
        }
        if (stats.sampled.length < sampleBytesPerPattern) stats.sampled.push(key);
        patterns.set(pattern, stats);
      });
    }
    for (const stats of patterns.values()) {
      const sizes = await Promise.all(
        stats.sampled.map((key) => this.client.call("MEMORY", "USAGE", key, "SAMPLES", "0") as Promise<number | null>),
      );
      const measured = sizes.filter((n): n is number => typeof n === "number");
      stats.bytes = measured.length ? measured.reduce((a, b) => a + b, 0) / measured.length : 0;
    }
    return { total: found.length, patterns: [...patterns.values()].sort((a, b) => b.count - a.count) };
  }

  /** Whether Redis is rewriting its AOF, or has a rewrite scheduled (behind an RDB save). */
  async rewritingAof(): Promise<boolean> {
    return /^aof_rewrite_(in_progress|scheduled):1/m.test(await this.client.info("persistence"));
  }

  /** Unlinks every key matching `pattern`: the floor's, whose keys are not the service's to audit. */
  async unlinkMatching(pattern: string): Promise<number> {
    let cursor = "0";
    let unlinked = 0;
    do {
      const [next, batch] = await this.client.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (batch.length > 0) unlinked += await this.client.unlink(...batch);
    } while (cursor !== "0");
    return unlinked;
  }

  close(): void {
    this.client.disconnect();
  }
}

export interface PatternStats {
  pattern: string;
  /** `ours`: the store's `rsd:` keys, which must all expire; `queue`: the queue's keys under `{rsd}:replies:`. */
  owner: "ours" | "queue" | "other";
  type: string;
  count: number;
  withoutTtl: number;
  examplesWithoutTtl: string[];
  sampled: string[];
  /** Mean MEMORY USAGE of the sampled keys. */
  bytes: number;
  /** Remaining TTLs of the keys that have one. */
  ttlSumMs: number;
  ttlMaxMs: number;
}

export interface KeyAudit {
  total: number;
  patterns: PatternStats[];
}

/** The queue's keys that exist once per queue, whatever the traffic. */
export const queueFixedKeys: Record<string, string> = {
  stream: "the jobs waiting or running (settled entries are deleted)",
  delayed: "retries waiting for their backoff",
};

const queuePrefix = "{rsd}:replies:";

/** A key's pattern (ids replaced by placeholders) and whose it is. */
function classify(key: string): { pattern: string; owner: PatternStats["owner"] } {
  if (key.startsWith(queuePrefix)) {
    const rest = key.slice(queuePrefix.length);
    if (rest in queueFixedKeys) return { pattern: `${queuePrefix}${rest}`, owner: "queue" };
    return { pattern: `${queuePrefix}job:<job>`, owner: "queue" };
  }
  if (key.startsWith("rsd:")) {
    const parts = key.split(":");
    const kind = parts[1] ?? "";
    const shapes: Record<string, string> = {
      event: "rsd:event:<ws>:<eventId>",
      message: "rsd:message:<ws>:<messageKey>",
      reply: "rsd:reply:<ws>:<messageKey>",
      conversation: "rsd:conversation:<ws>:<conversation>",
      "{rate}": "rsd:{rate}:<window>",
    };
    if (kind in shapes) return { pattern: shapes[kind] as string, owner: "ours" };
    if (kind === "stats") {
      // rsd:stats:{<tenant>}:workspaces, rsd:stats:{<tenant>}:ws:<ws>[:activity|:error|:<bucket>:<start>]
      const rest = parts.slice(3);
      if (rest[0] === "ws") rest[1] = "<ws>";
      const shape = rest.map((part) => (/^\d+$/.test(part) ? "<start>" : part)).join(":");
      return { pattern: `rsd:stats:{<tenant>}:${shape}`, owner: "ours" };
    }
    return { pattern: `rsd:${kind}:…`, owner: "ours" };
  }
  return { pattern: key.split(":").slice(0, 2).join(":"), owner: "other" };
}

/** after − before, per command, without the probe's own commands; zero rows dropped. */
export function commandDelta(before: RedisSnapshot, after: RedisSnapshot): CommandCounts {
  const delta: CommandCounts = new Map();
  for (const [command, calls] of after.commands) {
    if (ownCommands.has(command)) continue;
    const d = calls - (before.commands.get(command) ?? 0);
    if (d !== 0) delta.set(command, d);
  }
  return delta;
}

export function totalCalls(counts: CommandCounts): number {
  let total = 0;
  for (const calls of counts.values()) total += calls;
  return total;
}
