import { execFileSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { ManagedProcess } from "./child.ts";
import { freePort } from "./free-port.ts";

/*
 * A private PostgreSQL server for a test that stops and starts it (the machine's shared one must stay up): initdb
 * into a temp dir, then `postgres` in the foreground on a free loopback port, stopped by pid. PostgreSQL refuses to
 * run as root, so as root both run as the `postgres` user. Whatever a test leaves behind is killed when it ends.
 */

const live = new Set<ManagedProcess>();
process.once("exit", () => {
  for (const server of live) if (server.running) process.kill(server.pid, "SIGKILL");
});

function binary(name: string): string {
  const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim();
  return join(dir, name);
}

/** Runs as `postgres` when we are root: PostgreSQL will not run as root. */
function asUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

export class PostgresServer {
  private process: ManagedProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  /** initdb, start, and resolve once it accepts connections. */
  static async start(): Promise<PostgresServer> {
    const dir = mkdtempSync(join(tmpdir(), "resident-pg-"));
    const user = asUser();
    if (user.uid !== undefined) chownSync(dir, user.uid, user.gid as number);
    execFileSync(binary("initdb"), ["-D", join(dir, "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8"], {
      ...user,
      stdio: "ignore",
    });
    const server = new PostgresServer(await freePort(), dir);
    await server.restart();
    return server;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  get running(): boolean {
    return this.process?.running ?? false;
  }

  /** Starts the server again after stop(), on the same port and data. */
  async restart(): Promise<void> {
    if (this.process?.running) throw new Error(`postgres on ${this.port} is already running`);
    const args = ["-D", join(this.dir, "data"), "-p", String(this.port), "-k", this.dir];
    const settings = ["listen_addresses=127.0.0.1", "fsync=off", "max_connections=200"];
    this.process = ManagedProcess.spawn(
      `postgres-${this.port}`,
      binary("postgres"),
      [...args, ...settings.flatMap((s) => ["-c", s])],
      asUser(),
    );
    live.add(this.process);
    await this.untilAccepting(this.process);
  }

  /** A fast shutdown (SIGINT): every connection is closed, as when an operator stops the server. */
  async stop(): Promise<void> {
    await this.process?.stop("SIGINT", 10_000);
  }

  async dispose(): Promise<void> {
    await this.process?.stop("SIGKILL", 1_000);
    if (this.process) live.delete(this.process);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async untilAccepting(server: ManagedProcess): Promise<void> {
    for (let tries = 0; tries < 300; tries++) {
      if (!server.running) throw new Error(`postgres on ${this.port} exited:\n${server.log()}`);
      const client = new pg.Client({ connectionString: this.url });
      const up = await client.connect().then(
        () => true,
        () => false,
      );
      await client.end().catch(() => {});
      if (up) return;
      await sleep(50);
    }
    throw new Error(`postgres on ${this.port} did not accept connections:\n${server.log()}`);
  }
}
