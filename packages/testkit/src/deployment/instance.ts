import type { ManagedProcess } from "../processes/child.ts";
import { type InstanceEntry, spawnInstance } from "../processes/instance.ts";
import { track, untrack } from "./leftovers.ts";
import { parseMetrics, type Samples } from "./metrics.ts";

export type Readiness = "healthz" | "readyz";

/**
 * One resident process of a deployment, on a port of its own that it keeps across restarts (nginx's upstream list
 * names it). Spawned by processes/instance.ts's spawnInstance, but restartable: the environment is kept, the port fixed.
 * Every run's output is kept, so a failing test can print what a killed incarnation said before it died.
 */
export class DeployedInstance {
  readonly url: string;
  /** Every incarnation, oldest first; the last is the current one. */
  readonly runs: ManagedProcess[] = [];

  constructor(
    readonly name: string,
    readonly port: number,
    readonly env: Record<string, string>,
    readonly entry: InstanceEntry = "source",
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  get process(): ManagedProcess | undefined {
    return this.runs.at(-1);
  }

  get running(): boolean {
    return this.process?.running ?? false;
  }

  get pid(): number | undefined {
    return this.running ? this.process?.pid : undefined;
  }

  /** The key this instance presents to the fake Anthropic: its LLM calls are told apart by it. */
  get anthropicKey(): string | undefined {
    return this.env.ANTHROPIC_API_KEY;
  }

  /** Spawns the process and waits until it answers `readiness` (readyz: Redis and the database reachable too). */
  async start(readiness: Readiness = "readyz", timeoutMs = 60_000): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    const child = spawnInstance(this.name, { ...this.env, PORT: String(this.port) }, this.entry);
    this.runs.push(child);
    track(child);
    await this.untilAnswering(child, readiness, timeoutMs);
  }

  /**
   * SIGTERM: a graceful shutdown (jobs in hand finish), SIGKILL after `graceMs`. Gives the exit code: 0 for a shutdown
   * that finished, null when a signal ended the process, undefined when none was running.
   */
  async stop(graceMs = 10_000): Promise<number | null | undefined> {
    const child = this.process;
    if (!child) return undefined;
    const code = await child.stop("SIGTERM", graceMs).catch(() => null);
    untrack(child);
    return code;
  }

  /** kill -9: no chance to finish, release or acknowledge anything. */
  async kill(): Promise<void> {
    const child = this.process;
    if (!child) return;
    await child.kill().catch(() => {});
    untrack(child);
  }

  /** Stops (gracefully unless told to kill) and starts again on the same port with the same environment. */
  async restart(options: { kill?: boolean; readiness?: Readiness } = {}): Promise<void> {
    await (options.kill ? this.kill() : this.stop());
    await this.start(options.readiness ?? "healthz");
  }

  /** GET a path of this instance directly (not through nginx): the status, or 0 when nothing answers. */
  async status(path: string): Promise<number> {
    return fetch(`${this.url}${path}`, { signal: AbortSignal.timeout(5_000) }).then(
      (response) => response.status,
      () => 0,
    );
  }

  /** This instance's Prometheus metrics, parsed. */
  async metrics(): Promise<Samples> {
    const response = await fetch(`${this.url}/metrics`, { signal: AbortSignal.timeout(5_000) });
    if (!response.ok) throw new Error(`${this.name}: GET /metrics answered ${response.status}`);
    return parseMetrics(await response.text());
  }

  /** What every incarnation wrote, the last `lines` lines of each. */
  log(lines = Number.POSITIVE_INFINITY): string {
    return this.runs
      .map((run, i) => {
        const all = run.log().split("\n");
        const shown = all.length > lines ? [`… (${all.length - lines} earlier lines)`, ...all.slice(-lines)] : all;
        const state = run.running ? "running" : "exited";
        return `── ${this.name} run ${i + 1} (pid ${run.pid}, ${state}) ──\n${shown.join("\n")}`;
      })
      .join("\n");
  }

  private async untilAnswering(child: ManagedProcess, readiness: Readiness, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!child.running) throw new Error(`${this.name} exited during start-up:\n${child.log()}`);
      if ((await this.status(`/${readiness}`)) === 200) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await child.kill();
    throw new Error(`${this.name} did not answer /${readiness} within ${timeoutMs} ms:\n${child.log()}`);
  }
}
