import { Agent, request } from "node:http";
import autocannon from "autocannon";

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

export interface OpenLoopResult {
  rate: number;
  durationS: number;
  sent: number;
  ok: number;
  failed: number;
  /** Milliseconds from the moment each request was due to its full answer. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** How far behind schedule the generator itself fell at worst (ms): large means the figures are suspect. */
  maxLagMs: number;
}

/**
 * Open loop at a fixed rate: request i is due at start + i/rate whatever the earlier ones are doing, and its
 * latency is counted from when it was due (so a stall is charged to every request it delays).
 *
 * Hand-written on purpose: autocannon's rate limit (v8 `overallRate`/`connectionRate`) sends each connection's
 * per-second quota back to back at the top of every second and then idles, which measures the latency of a burst,
 * not of a steady rate; and its coordinated-omission correction uses a 1 ms interval whatever the rate. Node's own
 * http client with a keep-alive pool is used, so there is no protocol code here, only the schedule.
 */
export async function openLoop(
  baseUrl: string,
  feed: RequestFeed,
  options: { rate: number; durationS: number; sockets: number },
): Promise<OpenLoopResult> {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: options.sockets });
  const total = Math.max(1, Math.round(options.rate * options.durationS));
  const interval = 1000 / options.rate;
  const latencies = new Float64Array(total);
  let done = 0;
  let ok = 0;
  let failed = 0;
  let maxLagMs = 0;
  const start = performance.now() + 20;

  await new Promise<void>((resolve) => {
    const finish = (index: number, due: number, success: boolean) => {
      latencies[index] = performance.now() - due;
      if (success) ok++;
      else failed++;
      if (++done === total) resolve();
    };
    const fire = (index: number, due: number) => {
      const next = feed.next();
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          method: "POST",
          path: next.path,
          headers: { ...next.headers, "content-length": String(next.body.length) },
          agent,
          timeout: 10_000,
        },
        (res) => {
          res.resume();
          res.once("end", () => finish(index, due, (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300));
          res.once("error", () => finish(index, due, false));
        },
      );
      req.once("error", () => finish(index, due, false));
      req.once("timeout", () => req.destroy(new Error("timeout")));
      req.end(next.body);
    };
    let sent = 0;
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + sent * interval <= now) {
        const due = start + sent * interval;
        maxLagMs = Math.max(maxLagMs, now - due);
        fire(sent, due);
        sent++;
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    };
    setTimeout(tick, 20);
  });
  agent.destroy();
  const sorted = Array.from(latencies).sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    rate: options.rate,
    durationS: options.durationS,
    sent: total,
    ok,
    failed,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: sorted.at(-1) ?? 0,
    maxLagMs,
  };
}
