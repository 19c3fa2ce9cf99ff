import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import type { OpenLoopOptions, OpenLoopResult } from "./open-loop.ts";

export type { OpenLoopResult } from "./open-loop.ts";

/** One delivery, signed before any clock starts: the load generator only writes bytes. */
export interface PreparedRequest {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Hands out prepared requests in order; `taken` says how many went out. */
export class RequestFeed {
  taken = 0;
  constructor(
    private readonly requests: readonly PreparedRequest[],
    /** A no-op server may be fed the same bodies again; the real path must never see a request twice. */
    private readonly wrap = false,
  ) {}

  get size(): number {
    return this.requests.length;
  }

  get exhausted(): boolean {
    return !this.wrap && this.taken >= this.requests.length;
  }

  next(): PreparedRequest {
    const index = this.taken++;
    const found = this.requests[this.wrap ? index % this.requests.length : index];
    if (!found) throw new Error(`request feed of ${this.requests.length} exhausted: size it for a faster server`);
    return found;
  }
}

export interface ClosedLoopResult {
  connections: number;
  durationS: number;
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  perSecond: number;
  p50: number;
  p99: number;
  statusCodes: Record<string, number>;
}

/**
 * Closed loop with autocannon: `connections` keep one request each in flight for `durationS` (or until `amount`
 * responses), every request the next of the feed. Accepted per second counts 2xx answers only.
 */
export async function closedLoop(
  baseUrl: string,
  feed: RequestFeed,
  options: { connections: number; durationS?: number; amount?: number },
): Promise<ClosedLoopResult> {
  let stoppedEarly = false;
  const started = performance.now();
  let finished: (error: Error | null, result: autocannon.Result) => void = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finished = (error, result) => (error ? reject(error) : resolve(result));
  });
  const instance = autocannon(
    {
      url: baseUrl,
      connections: options.connections,
      ...(options.amount ? { amount: options.amount } : { duration: options.durationS ?? 10 }),
      timeout: 10,
      requests: [
        {
          method: "POST",
          setupRequest: (req) => {
            if (feed.exhausted) {
              if (!stoppedEarly) {
                stoppedEarly = true;
                setImmediate(() => instance.stop());
              }
            }
            const next = feed.exhausted ? undefined : feed.next();
            return next ? { ...req, method: "POST", path: next.path, headers: next.headers, body: next.body } : req;
          },
        },
      ],
    },
    (error, result) => finished(error, result),
  );
  // autocannon installs no signal handlers and prints nothing when driven as a library without track().
  const result = await done;
  const elapsedS = (performance.now() - started) / 1000;
  const durationS = options.amount ? elapsedS : Math.min(elapsedS, result.duration);
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat?.count ?? 0;
  if (stoppedEarly) throw new Error(`the request feed (${feed.size}) ran dry before the run ended: make it larger`);
  return {
    connections: options.connections,
    durationS,
    sent: result.requests.sent,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    perSecond: result["2xx"] / durationS,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statusCodes,
  };
}

/**
 * The open-loop pacer (open-loop.ts) in a child process of its own, started once and fed one run at a time: a GC
 * pause or a long turn of this process (the fakes, the run's records) would otherwise be charged to every request in
 * flight. `pid` is there so the bench can account its CPU.
 */
export class Pacer {
  private constructor(private readonly child: ChildProcess) {}

  static async start(): Promise<Pacer> {
    const child = fork(fileURLToPath(new URL("./pacer-process.ts", import.meta.url)), {
      execArgv: ["--conditions=source", "--import", "tsx"],
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    await new Promise<void>((resolve, reject) => {
      child.once("message", () => resolve());
      child.once("exit", (code) => reject(new Error(`the pacer process exited during start-up (${code})`)));
    });
    return new Pacer(child);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** Takes the run's requests from the feed before the clock starts; the pacer only writes bytes. */
  run(baseUrl: string, feed: RequestFeed, options: OpenLoopOptions): Promise<OpenLoopResult> {
    const total = Math.max(1, Math.round(options.rate * options.durationS));
    const requests = Array.from({ length: total }, () => feed.next());
    return new Promise((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the pacer process exited mid-run (${code})`));
      this.child.once("exit", exited);
      this.child.once("message", (message: { result?: OpenLoopResult; error?: string }) => {
        this.child.off("exit", exited);
        if (message.result) resolve(message.result);
        else reject(new Error(`the pacer failed: ${message.error}`));
      });
      this.child.send({ baseUrl, requests, options });
    });
  }

  close(): void {
    if (this.child.connected) this.child.disconnect();
  }
}
