import type { ClosedLoopResult } from "./load.ts";
import type { Measured, Report } from "./report.ts";

/** The ack path's accepted/s over the bare baseline's: the median of the alternating rounds' ratios. */
export function ackRatio(r: Pick<Report, "roundRatios">): number {
  return median(r.roundRatios);
}

/** The floor's (the ack's necessary work alone) accepted/s over the same baseline, likewise. */
export function floorRatio(r: Pick<Report, "floorRatios">): number {
  return median(r.floorRatios);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Alternating rounds of one closed loop as one run: counts, time and CPU summed (so rates and CPU a request are the
 * rounds' together), each latency percentile the rounds' median.
 */
export function mergeRounds(rounds: readonly Measured<ClosedLoopResult>[]): Measured<ClosedLoopResult> {
  const results = rounds.map((round) => round.result);
  const cpus = rounds.map((round) => round.cpu);
  const sum = <T>(items: readonly T[], pick: (item: T) => number) =>
    items.reduce((total, item) => total + pick(item), 0);
  const durationS = sum(results, (r) => r.durationS);
  const ok = sum(results, (r) => r.ok);
  return {
    result: {
      connections: results[0]?.connections ?? 0,
      durationS,
      sent: sum(results, (r) => r.sent),
      ok,
      non2xx: sum(results, (r) => r.non2xx),
      errors: sum(results, (r) => r.errors),
      timeouts: sum(results, (r) => r.timeouts),
      perSecond: ok / Math.max(durationS, Number.EPSILON),
      p50: median(results.map((r) => r.p50)),
      p99: median(results.map((r) => r.p99)),
      statusCodes: sumRecords(results.map((r) => r.statusCodes)),
    },
    cpu: {
      wallS: sum(cpus, (u) => u.wallS),
      groups: sumRecords(cpus.map((u) => u.groups)),
      self: sum(cpus, (u) => u.self),
      other: sum(cpus, (u) => u.other),
      machine: sum(cpus, (u) => u.machine),
    },
  };
}

function sumRecords(records: readonly Record<string, number>[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const record of records)
    for (const [key, value] of Object.entries(record)) total[key] = (total[key] ?? 0) + value;
  return total;
}
