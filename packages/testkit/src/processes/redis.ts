import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { ManagedProcess } from "./child.ts";
import { freePort, startOnFreePort } from "./free-port.ts";

/*
 * Real redis-server processes for tests: each on a free loopback port, in its own temp dir, persisting nothing,
 * stopped by pid. Whatever a test leaves behind (a failing one included) is killed when the test process ends:
 * on exit, or on the SIGTERM vitest sends a worker whose hooks hang.
 */

const run = promisify(execFile);
const live = new Set<ManagedProcess>();
const dirs = new Set<string>();
function killLeftovers(): void {
  for (const server of live) if (server.running) process.kill(server.pid, "SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
process.once("exit", killLeftovers);
process.once("SIGTERM", () => {
  killLeftovers();
  // Then terminate as the signal meant to, unless someone else has taken charge of it.
  if (process.listenerCount("SIGTERM") === 0) process.kill(process.pid, "SIGTERM");
});

/** Runs redis-cli against one local port and returns its output. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args]);
  return stdout.trim();
}

export interface RedisServerOptions {
  /** A fixed port; by default a free one. */
  port?: number;
  /** Extra redis-server arguments, e.g. ["--cluster-enabled", "yes"]. */
  args?: string[];
}

export class RedisServer {
  private process: ManagedProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly args: string[],
  ) {}

  /** Starts redis-server and resolves once it answers PING. */
  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    const dir = mkdtempSync(join(tmpdir(), "resident-redis-"));
    dirs.add(dir);
    const startOn = async (port: number) => {
      const server = new RedisServer(port, dir, options.args ?? []);
      try {
        await server.restart();
        return server;
      } catch (error) {
        await server.kill();
        throw error;
      }
    };
    try {
      // A probed port can be taken before redis binds it; another is tried unless the caller fixed the port.
      return await (options.port === undefined ? startOnFreePort(startOn) : startOn(options.port));
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      dirs.delete(dir);
      throw error;
    }
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** The running process's pid; undefined while stopped. */
  get pid(): number | undefined {
    return this.process?.running ? this.process.pid : undefined;
  }

  /** Starts the process again after stop() or kill(), on the same port and dir (the outage test's comeback). */
  async restart(): Promise<void> {
    if (this.process?.running) throw new Error(`redis-server on ${this.port} is already running`);
    this.process = ManagedProcess.spawn(`redis-${this.port}`, "redis-server", [
      ...["--port", String(this.port), "--bind", "127.0.0.1", "--dir", this.dir],
      ...["--save", "", "--appendonly", "no"],
      ...this.args,
    ]);
    live.add(this.process);
    await this.untilAnswering(this.process);
  }

  /** SIGSTOP: Redis freezes with its sockets open — connections are accepted, nothing is answered. */
  freeze(): void {
    if (this.pid) process.kill(this.pid, "SIGSTOP");
  }

  /** SIGCONT: a frozen Redis goes on where it stopped. */
  thaw(): void {
    if (this.pid) process.kill(this.pid, "SIGCONT");
  }

  /** SIGTERM: a clean shutdown. */
  async stop(): Promise<void> {
    await this.process?.stop();
  }

  /** SIGKILL: Redis vanishes mid-conversation, as in a crash. */
  async kill(): Promise<void> {
    await this.process?.kill();
  }

  /** Kills the process and removes its temp dir. */
  async dispose(): Promise<void> {
    await this.kill();
    if (this.process) live.delete(this.process);
    rmSync(this.dir, { recursive: true, force: true });
    dirs.delete(this.dir);
  }

  private async untilAnswering(server: ManagedProcess): Promise<void> {
    for (let tries = 0; tries < 500; tries++) {
      if (!server.running) throw new Error(`redis-server on ${this.port} exited:\n${server.log()}`);
      if ((await redisCli(this.port, "PING").catch(() => "")) === "PONG") return;
      await sleep(20);
    }
    throw new Error(`redis-server on ${this.port} did not answer PING:\n${server.log()}`);
  }
}

export interface RedisClusterOptions {
  masters?: number;
  replicasPerMaster?: number;
}

/** A Redis Cluster of local processes, built with `redis-cli --cluster create`. */
export class RedisCluster {
  private constructor(readonly nodes: RedisServer[]) {}

  /** Starts the nodes, creates the cluster and resolves once every node reports every slot served. */
  static async start(options: RedisClusterOptions = {}): Promise<RedisCluster> {
    const masters = options.masters ?? 3;
    const replicas = options.replicasPerMaster ?? 1;
    const cluster = new RedisCluster([]);
    try {
      for (let i = 0; i < masters * (1 + replicas); i++) {
        const port = await freePort();
        const config = ["--cluster-config-file", `nodes-${port}.conf`, "--cluster-node-timeout", "5000"];
        cluster.nodes.push(await RedisServer.start({ port, args: ["--cluster-enabled", "yes", ...config] }));
      }
      const addresses = cluster.nodes.map((node) => `127.0.0.1:${node.port}`);
      await run("redis-cli", [
        "--cluster",
        "create",
        ...addresses,
        "--cluster-replicas",
        String(replicas),
        "--cluster-yes",
      ]);
      await cluster.untilConsistent();
      return cluster;
    } catch (error) {
      await cluster.dispose();
      throw error;
    }
  }

  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,…`, the form @resident/store's connectRedis reads. */
  get url(): string {
    return `redis+cluster://${this.nodes.map((node) => `127.0.0.1:${node.port}`).join(",")}`;
  }

  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.dispose()));
  }

  private async untilConsistent(): Promise<void> {
    for (let tries = 0; tries < 500; tries++) {
      const infos = await Promise.all(this.nodes.map((node) => redisCli(node.port, "CLUSTER", "INFO").catch(() => "")));
      if (infos.every((info) => info.includes("cluster_state:ok") && info.includes("cluster_slots_ok:16384"))) return;
      await sleep(50);
    }
    throw new Error("the cluster did not reach cluster_state:ok");
  }
}
