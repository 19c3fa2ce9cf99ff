import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";

/** A child process whose output is kept (for a failing test's report) and which is stopped by pid. */
export class ManagedProcess {
  readonly output: string[] = [];
  private readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output.push(chunk.toString());
      if (this.output.length > 2000) this.output.splice(0, 1000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    // A binary that is not installed: no exit follows, `running` reads false, and the log says why.
    child.once("error", (error) => this.output.push(`${name} could not start: ${error.message}\n`));
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  static spawn(name: string, command: string, args: string[], options: SpawnOptions = {}): ManagedProcess {
    return new ManagedProcess(name, spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options }));
  }

  get pid(): number {
    return this.child.pid as number;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Sends the signal and waits for the exit (SIGKILL after `graceMs` if it lingers); gives the exit code, null when a
   * signal ended the process.
   */
  async stop(signal: NodeJS.Signals = "SIGTERM", graceMs = 10_000): Promise<number | null> {
    if (!this.running) return this.child.exitCode;
    process.kill(this.pid, signal);
    const timer = setTimeout(() => this.running && process.kill(this.pid, "SIGKILL"), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  /** kill -9: the process gets no chance to finish anything. */
  async kill(): Promise<void> {
    await this.stop("SIGKILL");
  }

  log(): string {
    return this.output.join("");
  }
}
