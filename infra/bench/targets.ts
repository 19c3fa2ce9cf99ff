import { fixed, ms, table, verdict } from "./format.ts";
import type { RoundTrips } from "./monitor.ts";
import type { RedisWindow, Report } from "./report.ts";
import { ackRatio, floorRatio } from "./rounds.ts";

/**
 * What issue 10's figures are read from: a whole run of this checkout, or an earlier commit's part of one
 * (`BENCH_BEFORE`), which has no floor (`floorRatios` empty), no outage and no key audit.
 */
export type IssueRun = Pick<
  Report,
  | "settings"
  | "baselineMax"
  | "roundRatios"
  | "floorRatios"
  | "ingestRate"
  | "floorRate"
  | "baselineRate"
  | "ingestLive"
  | "kill"
> & {
  e2e: Pick<Report["e2e"], "messages" | "cpu">;
  redis: Pick<Report["redis"], "unique" | "idle" | "duplicate" | "duplicateRoundTrips">;
  twinStorm: Pick<Report["twinStorm"], "messages" | "deliveries" | "redis">;
};

/** Redis figures the report derives from its windows (net of the idle background). */
interface RedisFigures {
  /** Commands per unique message, end to end. */
  uniqueNet: number;
  /** Commands per message of the twin storm. */
  stormNet: number;
  /** Round trips the ack path's connections sent per duplicate delivery. */
  dupTrips: number;
}

/** A window's commands per `count`, net of the idle window's background scaled to the window's length. */
export function netPer(window: RedisWindow, idle: RedisWindow, count: number): number {
  return (window.total - (idle.total / idle.ms) * window.ms) / count;
}

/**
 * The duplicates window's round trips by kind. The gate's one trip: its claim (SET NX GET) on a two-step lane, the
 * admission script on the gate's key on one, counted by the deliveries they carried: each duplicate waits on the one
 * trip that carried it, which the other deliveries of its event-loop turn shared (`gateCalls` says how many calls
 * there were). `extraTrips`: anything else the ack path's connections sent; the target is that there is nothing.
 */
export function duplicateTrips(trips: RoundTrips) {
  const gateTrip = (row: { role: string; what: string }) =>
    (row.role === "command" && row.what === "set") ||
    (row.role === "producer" && /^script on (event|message)$/.test(row.what));
  const sum = (rows: RoundTrips["rows"], pick: (row: RoundTrips["rows"][number]) => number) =>
    rows.reduce((total, row) => total + pick(row), 0);
  const flush = (row: { what: string }) => row.what === "MULTI…EXEC: stats flush";
  return {
    claimTrips: sum(trips.rows.filter(gateTrip), (row) => row.carried),
    gateCalls: sum(trips.rows.filter(gateTrip), (row) => row.count),
    flushTrips: sum(trips.rows.filter(flush), (row) => row.count),
    extraTrips: sum(
      trips.rows.filter((row) => (row.role === "command" || row.role === "producer") && !gateTrip(row) && !flush(row)),
      (row) => row.count,
    ),
  };
}

/** The Redis figures of issue 10's table. */
function redisFigures(r: IssueRun): RedisFigures {
  const { unique, idle, duplicateRoundTrips } = r.redis;
  const n = r.e2e.messages;
  const trips = duplicateTrips(duplicateRoundTrips);
  return {
    uniqueNet: netPer(unique, idle, n),
    stormNet: netPer(r.twinStorm.redis, idle, r.twinStorm.messages),
    dupTrips: (trips.claimTrips + trips.extraTrips) / n,
  };
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
 * has the same figure, what the issue was filed with, and (`BENCH_BEFORE`) the earlier commit's figure in this run.
 */
export function issueTable(now: IssueRun, before?: { run: IssueRun; sha: string }): string[] {
  const figures = figuresOf(now);
  const then = before ? figuresOf(before.run) : undefined;
  const beforeHead = before ? [`before (${before.sha})`] : [];
  return [
    `Issue 10's figures, this run (speed is reported, never fatal; the baseline is the bare fastify route of this run${before ? `; before is ${before.sha}'s service, measured first in this run` : ""})`,
    ...table([
      ["figure", "this run", "baseline", ...beforeHead, "target", "met?", "issue filed with"],
      ...figures.map((f, i) => [
        f.name,
        f.value,
        f.baseline,
        ...(then ? [then[i]?.value ?? "–"] : []),
        f.target,
        verdict(f.met),
        f.filed,
      ]),
    ]),
    ...(before
      ? [
          `  before: its fixed rate was 30 % of its own capacity (${fixed(before.run.settings.rate, 0)}/s); its instances ran their sources under tsx, as its testkit started them`,
        ]
      : []),
  ];
}

function figuresOf(r: IssueRun): Figure[] {
  const redis = redisFigures(r);
  const perMessage = (cpuS: number, count: number) => (1000 * cpuS) / Math.max(1, count);
  const cpu = perMessage(r.e2e.cpu.groups.servers ?? 0, r.e2e.messages);
  const ratio = ackRatio(r);
  const killS = r.kill.lastAnsweredAfterMs / 1000;
  return [
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
      value: r.floorRatios.length > 0 ? `${fixed(ratio, 2)} (floor ${fixed(floorRatio(r), 2)})` : fixed(ratio, 2),
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
      // The pacer's figure decides; the light client's beside it says how much of it was the pacer's own queueing,
      // and the floor's at the same rate how much the ack's necessary work alone has on this machine.
      value: `${ms(r.ingestRate.result.p99)} ms (${r.settings.observerRate}/s client ${ms(r.ingestRate.result.observed.p99)}${r.floorRate ? `; floor ${ms(r.floorRate.result.p99)}` : ""})`,
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
}
