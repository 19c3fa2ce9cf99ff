import type { RedisClient } from "@resident/store";

type Monitorable = Extract<RedisClient, { monitor: unknown }>;
type MonitorConnection = Awaited<ReturnType<Monitorable["monitor"]>>;

/**
 * A connection in MONITOR mode, as ioredis' `monitor()` opens it, without that method's race: ioredis marks the
 * connection as monitoring a microtask after MONITOR's OK, so a monitored command that arrives in the same read as the
 * OK finds no command waiting, ioredis emits "Command queue state error", `monitor()` rejects and its connection is
 * left reconnecting forever (redis/ioredis#1981, taskforcesh/bullmq#2505; here a loaded machine's bench died of an
 * instance's PING and then never exited). Commands in that gap come before any window the caller measures, so they
 * are let go; any other error closes the connection.
 */
export function openMonitor(client: RedisClient): Promise<MonitorConnection> {
  if (!("monitor" in client)) throw new Error("MONITOR needs a standalone Redis");
  const connection = client.duplicate({ monitor: true, lazyConnect: false });
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      if (error.message.startsWith("Command queue state error")) return;
      connection.disconnect();
      reject(error);
    };
    connection.on("error", onError);
    connection.once("monitoring", () => {
      connection.off("error", onError);
      resolve(connection);
    });
  });
}

/** One command MONITOR saw: the address of the connection that sent it (`lua` inside a script) and its words. */
export interface Seen {
  source: string;
  args: string[];
}

/** A window's commands, and the connections' names by address (CLIENT LIST's, read as the window closes). */
export interface CommandWindow {
  seen: Seen[];
  names: Map<string, string>;
}

/** What the clients sent in a window, as round trips: one per plain command, script call, or MULTI…EXEC block. */
export interface RoundTrips {
  /**
   * `role · what` → count; role is the connection's (resident:<role>:<instance>), what the command or the block.
   * `carried`: the deliveries those round trips carried — one a plain command, a script's gate keys (the admission
   * script takes one event-loop turn's deliveries at once, so many of them share one round trip).
   */
  rows: { role: string; what: string; count: number; carried: number }[];
  /** Commands run inside scripts, by name (they cost no round trip of their own). */
  inScripts: Map<string, number>;
  total: number;
}

/**
 * Redis' MONITOR, for attributing every command of a short window to the connection that sent it. MONITOR slows
 * Redis down, so it runs only around the duplicates, never while throughput is being measured.
 */
export class CommandMonitor {
  private readonly seen: Seen[] = [];

  private constructor(
    private readonly client: RedisClient,
    private readonly connection: MonitorConnection,
  ) {
    connection.on("monitor", (_time: string, args: string[], source: string) => {
      this.seen.push({ source, args });
    });
  }

  static async start(client: RedisClient): Promise<CommandMonitor> {
    return new CommandMonitor(client, await openMonitor(client));
  }

  /** Ends the window and gives its commands as round trips. */
  async stop(): Promise<RoundTrips> {
    const { seen, names } = await this.close();
    return tally(seen, names);
  }

  /** Ends the window and gives its commands as they came. */
  async close(): Promise<CommandWindow> {
    const list = String(await this.client.call("CLIENT", "LIST"));
    this.connection.disconnect();
    const names = new Map<string, string>();
    for (const line of list.split("\n")) {
      const addr = /\baddr=(\S+)/.exec(line)?.[1];
      if (addr) names.set(addr, /\bname=(\S*)/.exec(line)?.[1] ?? "");
    }
    return { seen: this.seen, names };
  }
}

export function roleOf(name: string | undefined): string {
  if (!name) return "unnamed";
  const [owner, role] = name.split(":");
  return owner === "resident" && role ? role : name;
}

/** What a key is for: `queue` for the job queue's, else the kind after `rsd:` (`event`, `message`, `reply`, …). */
export function keyKind(key: string): string {
  if (key.startsWith("{rsd}:replies:")) return "queue";
  return /^rsd:([a-z]+)/.exec(key)?.[1] ?? key;
}

/**
 * A script call (EVALSHA sha numkeys key…) by the keys it touches: the kind of its first key that is not the
 * queue's (the admission script's first key is the stream, its gate keys follow), and how many keys of that kind.
 */
export function scriptKeys(args: readonly string[]): { kind: string; count: number } {
  const kinds = args.slice(3, 3 + Number(args[2])).map((key) => keyKind(String(key)));
  const kind = kinds.find((found) => found !== "queue") ?? kinds[0] ?? "none";
  return { kind, count: kinds.filter((found) => found === kind).length };
}

function describeBlock(inner: string[][]): string {
  const first = inner[0];
  const key = String(first?.[1] ?? "");
  if (key.includes(":stats:")) return "MULTI…EXEC: stats flush";
  if (key.includes(":conversation:")) return "MULTI…EXEC: thread memory";
  return `MULTI…EXEC: ${first?.[0] ?? "empty"}`;
}

function tally(seen: Seen[], names: Map<string, string>): RoundTrips {
  const counts = new Map<string, { role: string; what: string; count: number; carried: number }>();
  const inScripts = new Map<string, number>();
  const open = new Map<string, string[][]>();
  const add = (role: string, what: string, carried = 1) => {
    const key = `${role}\u0000${what}`;
    const row = counts.get(key) ?? { role, what, count: 0, carried: 0 };
    row.count++;
    row.carried += carried;
    counts.set(key, row);
  };
  for (const { source, args } of seen) {
    const command = String(args[0] ?? "").toLowerCase();
    if (source === "lua") {
      inScripts.set(command, (inScripts.get(command) ?? 0) + 1);
      continue;
    }
    const role = roleOf(names.get(source));
    if (role === "bench-probe" || names.get(source)?.endsWith(":bench-probe")) continue;
    const block = open.get(source);
    if (command === "multi") {
      open.set(source, []);
    } else if (command === "exec" || command === "discard") {
      add(role, describeBlock(block ?? []));
      open.delete(source);
    } else if (block) {
      block.push([command, ...args.slice(1)]);
    } else if (command === "evalsha" || command === "eval") {
      const keys = scriptKeys(args);
      add(role, `script on ${keys.kind}`, keys.count);
    } else {
      add(role, command);
    }
  }
  const rows = [...counts.values()].sort((a, b) => b.count - a.count);
  return { rows, inScripts, total: rows.reduce((sum, row) => sum + row.count, 0) };
}
