import { Agent, request } from "node:http";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import type { PreparedRequest } from "./load.ts";

export interface OpenLoopOptions {
  rate: number;
  durationS: number;
  sockets: number;
}

/** What the generator itself did meanwhile: its stalls are charged to every request in flight. */
export interface GeneratorStalls {
  /** How far behind schedule a request was sent at worst (ms). */
  maxLagMs: number;
  /** The generator's own GC pauses over the run (perf_hooks `gc` entries). */
  gcPauses: number;
  gcMaxMs: number;
  gcTotalMs: number;
  /** The generator's event-loop delay (perf_hooks, 1 ms resolution): p99 and max (ms). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** Its heap when the run ended (MiB). */
  heapUsedMiB: number;
}

export interface OpenLoopResult extends GeneratorStalls {
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
}

/**
 * Open loop at a fixed rate: request i is due at start + i/rate whatever the earlier ones are doing, and its
 * latency is counted from when it was due (so a stall is charged to every request it delays).
 *
 * Hand-written on purpose: autocannon's rate limit (v8 `overallRate`/`connectionRate`) sends each connection's
 * per-second quota back to back at the top of every second and then idles, which measures the latency of a burst,
 * not of a steady rate; and its coordinated-omission correction uses a 1 ms interval whatever the rate. Node's own
 * http client with a keep-alive pool is used, so there is no protocol code here, only the schedule.
 * The bench runs it in a process of its own (pacer-process.ts): a stall of the process that paces is every in-flight
 * request's latency, so it must not share a heap and an event loop with the fakes and the run's records.
 */
export async function paceOpenLoop(
  baseUrl: string,
  requests: readonly PreparedRequest[],
  options: OpenLoopOptions,
): Promise<OpenLoopResult> {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: options.sockets });
  const total = Math.max(1, Math.round(options.rate * options.durationS));
  if (requests.length < total) throw new Error(`open loop needs ${total} requests, was given ${requests.length}`);
  const interval = 1000 / options.rate;
  const latencies = new Float64Array(total);
  let done = 0;
  let ok = 0;
  let failed = 0;
  let maxLagMs = 0;
  const gc = { pauses: 0, maxMs: 0, totalMs: 0 };
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.pauses++;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
      gc.totalMs += entry.duration;
    }
  });
  gcObserver.observe({ entryTypes: ["gc"] });
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const start = performance.now() + 20;

  await new Promise<void>((resolve) => {
    const finish = (index: number, due: number, success: boolean) => {
      latencies[index] = performance.now() - due;
      if (success) ok++;
      else failed++;
      if (++done === total) resolve();
    };
    const fire = (index: number, due: number) => {
      const next = requests[index] as PreparedRequest;
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
  loopDelay.disable();
  // gc entries are delivered on a later turn.
  await new Promise((resolve) => setImmediate(resolve));
  gcObserver.disconnect();
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
    gcPauses: gc.pauses,
    gcMaxMs: gc.maxMs,
    gcTotalMs: gc.totalMs,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loopDelayMaxMs: loopDelay.max / 1e6,
    heapUsedMiB: process.memoryUsage().heapUsed / 2 ** 20,
  };
}
