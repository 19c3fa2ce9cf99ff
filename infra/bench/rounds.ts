import type { CpuUse } from "./cpu.ts";
import type { ClosedLoopResult } from "./load.ts";
import type { Measured, Report } from "./report.ts";

/** The ack path's accepted/s over the bare baseline's: the median of the alternating rounds' ratios. */
export function ackRatio(r: Pick<Report, "roundRatios">): number {
  return median(r.roundRatios);
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
  const sum = (pick: (r: ClosedLoopResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  const statusCodes: Record<string, number> = {};
  for (const r of results)
    for (const [code, count] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const durationS = sum((r) => r.durationS);
  const ok = sum((r) => r.ok);
  return {
    result: {
      connections: results[0]?.connections ?? 0,
      durationS,
      sent: sum((r) => r.sent),
      ok,
      non2xx: sum((r) => r.non2xx),
      errors: sum((r) => r.errors),
      timeouts: sum((r) => r.timeouts),
      perSecond: ok / Math.max(durationS, Number.EPSILON),
      p50: median(results.map((r) => r.p50)),
      p99: median(results.map((r) => r.p99)),
      statusCodes,
    },
    cpu: sumCpu(rounds.map((round) => round.cpu)),
  };
}

function sumCpu(uses: readonly CpuUse[]): CpuUse {
  const groups: Record<string, number> = {};
  for (const use of uses) for (const [group, s] of Object.entries(use.groups)) groups[group] = (groups[group] ?? 0) + s;
  const total = (pick: (use: CpuUse) => number) => uses.reduce((sum, use) => sum + pick(use), 0);
  return {
    wallS: total((u) => u.wallS),
    groups,
    self: total((u) => u.self),
    other: total((u) => u.other),
    machine: total((u) => u.machine),
  };
}
