import { fixed, ms, table, verdict } from "./format.ts";
import type { Report } from "./report.ts";
import { ackRatio, floorRatio } from "./rounds.ts";

/** Redis figures the report derives from its windows (net of the idle background). */
export interface RedisFigures {
  /** Commands per unique message, end to end. */
  uniqueNet: number;
  /** Commands per message of the twin storm. */
  stormNet: number;
  /** Round trips the ack path's connections sent per duplicate delivery. */
  dupTrips: number;
}

interface Figure {
  name: string;
  value: string;
  /** The bare-fastify baseline's own figure in this run, where it has one. */
  baseline: string;
  target: string;
  met: boolean;
  /** What issue 10 was filed with. */
  filed: string;
}

/**
 * Issue 10's table: every figure of this run beside its target, the bare-fastify baseline of the same run where it
 * has the same figure, and what the issue was filed with.
 */
export function issueTable(r: Report, redis: RedisFigures): string[] {
  const perMessage = (cpuS: number, count: number) => (1000 * cpuS) / Math.max(1, count);
  const cpu = perMessage(r.e2e.cpu.groups.servers ?? 0, r.e2e.messages);
  const ratio = ackRatio(r);
  const killS = r.kill.lastAnsweredAfterMs / 1000;
  const figures: Figure[] = [
    {
      name: "server CPU ms per message, end to end",
      value: ms(cpu),
      baseline: `${ms(perMessage(r.baselineMax.cpu.groups.servers ?? 0, r.baselineMax.result.ok))} a request`,
      target: "≤ 1.5",
      met: cpu <= 1.5,
      filed: "5.4",
    },
    {
      name: "ack path / bare fastify behind nginx",
      // The floor beside it: what the ack's necessary work alone reads on this machine (report.ts, section 1).
      value: `${fixed(ratio, 2)} (floor ${fixed(floorRatio(r), 2)})`,
      baseline: `${fixed(r.baselineMax.result.perSecond, 0)}/s`,
      target: "≥ 0.6",
      met: ratio >= 0.6,
      filed: "0.28",
    },
    {
      name: "Redis commands per unique message, end to end",
      value: fixed(redis.uniqueNet, 1),
      baseline: "–",
      target: "≤ 12",
      met: redis.uniqueNet <= 12,
      filed: "55",
    },
    {
      name: `Redis commands per message on the twin storm (${fixed(r.twinStorm.deliveries / r.twinStorm.messages, 1)} deliveries)`,
      value: fixed(redis.stormNet, 1),
      baseline: "–",
      target: "≤ 20",
      met: redis.stormNet <= 20,
      filed: "103",
    },
    {
      name: "Redis round trips per duplicate delivery",
      value: fixed(redis.dupTrips, 3),
      baseline: "–",
      target: "1",
      met: Math.abs(redis.dupTrips - 1) < 0.02,
      filed: "1",
    },
    {
      name: `ack p99 at 30 % of capacity (${fixed(r.settings.rate, 0)}/s, workers paused)`,
      // The pacer's figure decides; the light client's beside it says how much of it was the pacer's own queueing.
      value: `${ms(r.ingestRate.result.p99)} ms (${r.settings.observerRate}/s client ${ms(r.ingestRate.result.observed.p99)})`,
      baseline: `${ms(r.baselineRate.result.p99)} ms (${ms(r.baselineRate.result.observed.p99)})`,
      target: "< 50 ms",
      met: r.ingestRate.result.p99 < 50,
      filed: "147 ms",
    },
    {
      name: "ack p99 with the workers at saturation (ROLE=all)",
      value: `${ms(r.ingestLive.result.p99)} ms`,
      baseline: `${ms(r.baselineMax.result.p99)} ms`,
      target: "< 100 ms",
      met: r.ingestLive.result.p99 < 100,
      filed: "197 ms",
    },
    {
      name: "last answer of a kill -9-ed instance's in-flight messages",
      value: `${fixed(killS, 1)} s after the kill`,
      baseline: "–",
      target: "≤ 15 s",
      met: killS <= 15,
      filed: "lock + stall interval",
    },
  ];
  return [
    "Issue 10's figures, this run (speed is reported, never fatal; the baseline is the bare fastify route of this run)",
    ...table([
      ["figure", "this run", "baseline", "target", "met?", "issue filed with"],
      ...figures.map((f) => [f.name, f.value, f.baseline, f.target, verdict(f.met), f.filed]),
    ]),
  ];
}
