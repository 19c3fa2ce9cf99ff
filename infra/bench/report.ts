import type { CpuUse } from "./cpu.ts";
import { bytes, duration, fixed, int, ms, table, verdict } from "./format.ts";
import type { KillResult } from "./kill.ts";
import type { ClosedLoopResult, OpenLoopResult } from "./load.ts";
import type { Machine } from "./machine.ts";
import type { RoundTrips } from "./monitor.ts";
import { type CommandCounts, type KeyAudit, queueFixedKeys, totalCalls } from "./redis-probe.ts";
import { ackRatio, floorRatio } from "./rounds.ts";
import { duplicateTrips, type IssueRun, issueTable, netPer } from "./targets.ts";

export interface RedisWindow {
  ms: number;
  commands: CommandCounts;
  total: number;
}

export type ObservedOpenLoop = OpenLoopResult & { observed: OpenLoopResult };

/** A run's result and the CPU the machine spent meanwhile. */
export interface Measured<T> {
  result: T;
  cpu: CpuUse;
}

export interface Report {
  machine: Machine;
  settings: {
    instances: number;
    connections: number;
    saturateS: number;
    ratioRounds: number;
    ratioRoundS: number;
    baselineWarmupS: number;
    floorWarmupS: number;
    ingestWarmupS: number;
    ingestWarmupDuplicatesS: number;
    rateShare: number;
    rateS: number;
    rateLeadInS: number;
    rateSockets: number;
    observerRate: number;
    e2eMessages: number;
    e2eConnections: number;
    stormMessages: number;
    killMessages: number;
    killHoldMs: number;
    rate: number;
  };
  totalS: number;
  /** The baseline's, the floor's and the ack path's alternating rounds, each side's rounds as one. */
  baselineMax: Measured<ClosedLoopResult>;
  /** floor-server.mjs: the ack's necessary work alone, with none of the service's layers. */
  floorMax: Measured<ClosedLoopResult>;
  ingestPaused: Measured<ClosedLoopResult>;
  /** Each round's ack path over the baseline of the same round; their median is the figure. */
  roundRatios: number[];
  /** Each round's floor over the baseline of the same round. */
  floorRatios: number[];
  ingestLive: Measured<ClosedLoopResult>;
  /** The workers answering the paused run's backlog with nothing else running. */
  backlog: Measured<{ seconds: number; posts: number }> & { jobs: number; replies: number };
  /** How long the workers took to finish after the live saturating run ended. */
  liveDrainS: number;
  /** The fixed rate, and what a light client of its own process saw beside it. */
  baselineRate: Measured<ObservedOpenLoop>;
  /** The floor at the same rate; an earlier commit's run (`BENCH_BEFORE`) has none. */
  floorRate?: Measured<ObservedOpenLoop>;
  ingestRate: Measured<ObservedOpenLoop>;
  /** The same runs with Redis killed: the PostgreSQL lane takes deliveries in. */
  outage: {
    closed: Measured<ClosedLoopResult>;
    /** At `rateValue`, a share of the Redis-down closed-loop capacity, workers live. */
    rate: Measured<OpenLoopResult>;
    /** The same rate once Redis is back, workers live. */
    upRate: Measured<OpenLoopResult>;
    rateValue: number;
    /** From the kill until every instance's breaker said Redis is down. */
    switchMs: number;
    /** From the restart until every instance's breaker said Redis is up. */
    healMs: number;
    /** After the restart, until everything accepted was answered. */
    drainS: number;
  };
  /** Each message as app_mention + message, 2–4 copies each, side by side; Redis counted around it. */
  twinStorm: {
    messages: number;
    deliveries: number;
    fire: ClosedLoopResult;
    seconds: number;
    redis: RedisWindow;
    /** Stormed messages with exactly one reply. */
    exact: number;
  };
  kill: KillResult;
  e2e: {
    messages: number;
    fire: ClosedLoopResult;
    acksDoneS: number;
    seconds: number;
    cpu: CpuUse;
    replies: number;
    duplicatesFire: ClosedLoopResult;
    newPostsFromDuplicates: number;
    /** PostgreSQL transactions (each service statement is one) around the batch, and around the idle window. */
    postgres: {
      transactions: number;
      ms: number;
      idleTransactions: number;
      idleMs: number;
      /** The same count around mentions whose answers the fake LLM held `holdMs`. */
      slow: { messages: number; holdMs: number; transactions: number; ms: number };
    };
  };
  redis: {
    unique: RedisWindow;
    idle: RedisWindow;
    duplicate: RedisWindow;
    duplicateRoundTrips: RoundTrips;
    memory: { usedBytes: number; keys: number; events: number };
    audit: KeyAudit;
  };
  correctness: {
    /** 2xx answers to distinct deliveries over the whole run. */
    accepted: number;
    /** Threads of ours holding a reply. */
    answeredThreads: number;
    /** Threads holding more than one reply. */
    doubled: number;
    /** Threads with a reply that we never sent a mention for. */
    strangers: number;
    e2eExact: boolean;
  };
}

const targets = { ratio: 0.6 };

/** What sections 1 and 2 need: a run of `BENCH_ONLY=latency` has these and nothing else. */
export type LatencyReport = Pick<
  Report,
  | "machine"
  | "settings"
  | "totalS"
  | "baselineMax"
  | "floorMax"
  | "ingestPaused"
  | "roundRatios"
  | "floorRatios"
  | "ingestLive"
  | "baselineRate"
  | "floorRate"
  | "ingestRate"
>;

/** CPU ms per 2xx answer of one process group ("self" is this process, "other" the rest of the machine). */
function perRequest(m: Measured<{ ok: number }>, group: string, format: (n: number) => string = ms): string {
  return format(
    (1000 * (group === "self" ? m.cpu.self : group === "other" ? m.cpu.other : (m.cpu.groups[group] ?? 0))) /
      Math.max(1, m.result.ok),
  );
}

/** Section 1's CPU a request, to the microsecond: the floor and the ack differ by a few hundredths of a ms. */
const thousandths = (n: number) => fixed(n, 3);
/** A window's database transactions per message, net of the idle window's rate (pollers, sweepers). */
const statementsPer = (pg: { idleTransactions: number; idleMs: number }, transactions: number, ms: number, n: number) =>
  (transactions - (pg.idleTransactions / pg.idleMs) * ms) / n;

const pacerCores = (m: Measured<unknown>) => fixed((m.cpu.groups.pacer ?? 0) / m.cpu.wallS, 2);
const observedTail = (r: ObservedOpenLoop) => `${ms(r.observed.p50)} · ${ms(r.observed.p99)}`;
const gcPauses = (r: OpenLoopResult) => `${r.gcPauses} · ${ms(r.gcMaxMs)}`;

/** The printout's head and sections 1 (closed loop) and 2 (the fixed rate). */
export function renderLatency(r: LatencyReport): string[] {
  const out: string[] = [];
  const s = r.settings;
  const m = r.machine;

  out.push(`resident bench · ${m.date} · ${fixed(r.totalS, 0)} s`);
  out.push(
    `machine   ${m.cpu} · ${m.cores} cores · ${fixed(m.memoryGiB, 1)} GiB · ${m.kernel} · load at start ${m.loadAtStart}`,
  );
  out.push(`software  Node ${m.node} · nginx ${m.nginx} · Redis ${m.redis} · autocannon ${m.autocannon}`);
  out.push(
    `settings  ${s.instances} instances behind nginx (infra/nginx/nginx.template.conf), ROLE=all, 1 Slack workspace, instant fake LLM`,
  );
  out.push(
    `          the instances run the build (\`npm run build\`, as \`npm start\` runs it), the baseline plain JS`,
  );
  out.push(`          every request a distinct Slack app_mention, signed before the clock starts`);
  out.push(
    `          the closed loops' autocannon is this Node process, which also runs the fake Slack and fake Anthropic; the`,
  );
  out.push(
    `          fixed rate's pacer is a child process with a fresh heap; both share the ${m.cores} cores with nginx, the servers,`,
  );
  out.push(`          Redis and PostgreSQL`);
  out.push(
    `          warm-up ${s.baselineWarmupS} s baseline, ${s.floorWarmupS} s floor, ${s.ingestWarmupS} s + ${s.ingestWarmupDuplicatesS} s duplicates ingest · saturation ${s.connections} connections, ${s.ratioRounds} × ${s.ratioRoundS} s a side (workers live ${s.saturateS} s) · fixed rate ${fixed(s.rateShare * 100, 0)} % of ingest capacity × ${s.rateS} s · end to end ${int(s.e2eMessages)} mentions`,
  );
  out.push("");

  // 1. Accepted events/s
  const b = r.baselineMax.result;
  const l = r.ingestLive.result;
  const ratio = ackRatio(r);
  const floor = floorRatio(r);
  const liveRatio = l.perSecond / b.perSecond;
  const closed = [r.baselineMax, r.floorMax, r.ingestPaused, r.ingestLive];
  const rounds = (ratios: number[]) => ratios.map((x) => fixed(x, 2)).join(" · ");
  out.push(
    `1. Accepted events/s — closed loop, ${s.connections} connections; baseline, floor and ack path in ${s.ratioRounds} alternating rounds of ${s.ratioRoundS} s a side, workers live ${s.saturateS} s`,
  );
  out.push(
    ...table([
      ["", "baseline", "floor", "ingest, workers paused", "ingest, workers live"],
      ["", "(bare fastify)", "(the ack's necessary work)", "(the ack path alone)", "(as deployed, ROLE=all)"],
      ["accepted/s (2xx)", ...closed.map((m) => int(m.result.perSecond))],
      ["ratio to baseline (rounds' median)", "1.00", fixed(floor, 2), fixed(ratio, 2), fixed(liveRatio, 2)],
      ["  each round", "", rounds(r.floorRatios), rounds(r.roundRatios), ""],
      [
        "non-2xx · errors · timeouts",
        ...closed.map((m) => `${m.result.non2xx} · ${m.result.errors} · ${m.result.timeouts}`),
      ],
      ["latency p50 · p99 ms", ...closed.map((m) => `${ms(m.result.p50)} · ${ms(m.result.p99)}`)],
      ["CPU ms per accepted request:", "", "", "", ""],
      ["  the servers", ...closed.map((m) => perRequest(m, "servers", thousandths))],
      ["  nginx", ...closed.map((m) => perRequest(m, "nginx", thousandths))],
      ["  Redis", "–", ...closed.slice(1).map((m) => perRequest(m, "redis", thousandths))],
      ["  load generator + fakes", ...closed.map((m) => perRequest(m, "self", thousandths))],
      ["  other processes, kernel", ...closed.map((m) => perRequest(m, "other", thousandths))],
      [
        "cores busy (of the machine's)",
        ...closed.map((m) => `${fixed(m.cpu.machine / m.cpu.wallS, 2)} of ${r.machine.cores}`),
      ],
      ["  of which other processes", ...closed.map((m) => fixed(m.cpu.other / m.cpu.wallS, 2))],
    ]),
  );
  const codes = (m: ClosedLoopResult) =>
    Object.entries(m.statusCodes)
      .filter(([code]) => !code.startsWith("2"))
      .map(([code, count]) => `${count}× ${code}`)
      .join(", ");
  if (l.non2xx > 0)
    out.push(`  workers live: ${codes(l)} (nginx gives up on an instance after 2.5 s and tries one more)`);
  out.push(
    `  ingest (ack path) / baseline = ${fixed(ratio, 2)}   target ≥ ${fixed(targets.ratio, 2)}   ${verdict(ratio >= targets.ratio)}` +
      `   (as deployed, with the workers competing for the same cores: ${fixed(liveRatio, 2)})`,
  );
  out.push(
    `  the floor, the ack's necessary work alone with none of the service's layers, reads ${fixed(floor, 2)} on this machine; the ack / the floor = ${fixed(ratio / floor, 2)}`,
  );
  out.push("");

  // 2. Ack latency at a fixed rate
  type Side = [name: string, run: Measured<ObservedOpenLoop>];
  const sides: Side[] = [["baseline", r.baselineRate]];
  if (r.floorRate) sides.push(["floor", r.floorRate]);
  sides.push(["ingest", r.ingestRate]);
  const row = (name: string, cell: (m: Measured<ObservedOpenLoop>) => string) => [
    name,
    ...sides.map(([, m]) => cell(m)),
  ];
  out.push(
    `2. Ack latency at ${int(s.rate)} requests/s (${fixed(s.rateShare * 100, 0)} % of the ack path's capacity) — open loop, ${s.rateS} s, workers paused`,
  );
  out.push(
    "   counted from when each request was due, so a stall is charged to every request it delays; paced by a process",
  );
  out.push(
    `   of its own (its stalls below: they are charged too), each side after a lead-in of ${s.rateLeadInS} s at the rate`,
  );
  out.push(
    ...table([
      ["", ...sides.map(([name]) => name)],
      row("p50 ms", (m) => ms(m.result.p50)),
      row("p90 ms", (m) => ms(m.result.p90)),
      row("p99 ms", (m) => ms(m.result.p99)),
      row("max ms", (m) => ms(m.result.max)),
      row("sent · failed", (m) => `${int(m.result.sent)} · ${m.result.failed}`),
      row("servers' CPU ms per request", (m) => perRequest(m, "servers")),
      row("other processes' CPU, cores", (m) => fixed(m.cpu.other / m.cpu.wallS, 2)),
      row(`a ${s.observerRate}/s client beside it: p50 · p99 ms`, (m) => observedTail(m.result)),
      row("  max ms", (m) => ms(m.result.observed.max)),
      row("pacers' CPU, cores", pacerCores),
      row("pacer's worst lag ms", (m) => ms(m.result.maxLagMs)),
      row("pacer's event-loop delay max ms", (m) => ms(m.result.loopDelayMaxMs)),
      row("pacer's GC pauses · longest ms", (m) => gcPauses(m.result)),
    ]),
  );
  out.push("");
  return out;
}

/**
 * The printout, and the checks that failed (correctness and key growth only); `before`, an earlier commit's figures
 * of the same run, goes beside this checkout's in issue 10's table.
 */
export function render(r: Report, before?: { run: IssueRun; sha: string }): { text: string; failures: string[] } {
  const failures: string[] = [];
  const out: string[] = renderLatency(r);
  const s = r.settings;
  const l = r.ingestLive.result;
  const ratio = ackRatio(r);

  // 2b. During a Redis outage
  const o = r.outage;
  out.push(
    `2b. During a Redis outage — Redis killed; every instance takes deliveries in through PostgreSQL (breaker open after ${int(o.switchMs)} ms)`,
  );
  out.push(
    ...table([
      ["", "Redis up", "Redis down"],
      ["accepted/s, closed loop, workers live", int(l.perSecond), int(o.closed.result.perSecond)],
      [
        "  non-2xx · errors · timeouts",
        `${l.non2xx} · ${l.errors} · ${l.timeouts}`,
        `${o.closed.result.non2xx} · ${o.closed.result.errors} · ${o.closed.result.timeouts}`,
      ],
      [
        "  latency p50 · p99 ms",
        `${ms(l.p50)} · ${ms(l.p99)}`,
        `${ms(o.closed.result.p50)} · ${ms(o.closed.result.p99)}`,
      ],
      ["  servers' CPU ms per request", perRequest(r.ingestLive, "servers"), perRequest(o.closed, "servers")],
      [`ack at ${int(o.rateValue)}/s, open loop, workers live: p50 ms`, ms(o.upRate.result.p50), ms(o.rate.result.p50)],
      ["  p99 ms", ms(o.upRate.result.p99), ms(o.rate.result.p99)],
      [
        "  sent · failed",
        `${int(o.upRate.result.sent)} · ${o.upRate.result.failed}`,
        `${int(o.rate.result.sent)} · ${o.rate.result.failed}`,
      ],
    ]),
  );
  out.push(
    `  fixed rate: ${fixed(s.rateShare * 100, 0)} % of the Redis-down capacity, run with Redis down and again after it is back (the "Redis up" column). Redis restarted: switched back in ${int(o.healMs)} ms, all answered ${fixed(o.drainS, 1)} s later`,
  );
  out.push("");

  // 3. End to end
  const e = r.e2e;
  const e2eOk = r.correctness.e2eExact;
  const cpuPer = (cpu: CpuUse, count: number, group: string) =>
    ms((1000 * (group === "self" ? cpu.self : (cpu.groups[group] ?? 0))) / Math.max(1, count));
  const bl = r.backlog;
  const slow = e.postgres.slow;
  out.push(
    `3. End to end — ${int(e.messages)} mentions fired on ${s.e2eConnections} connections, until every reply is at the fake Slack (instant fake LLM)`,
  );
  out.push(
    ...table([
      [
        "all acked after",
        `${fixed(e.acksDoneS, 2)} s`,
        `${int(e.messages / e.acksDoneS)} acks/s while the workers answer`,
      ],
      ["all answered after", `${fixed(e.seconds, 2)} s`, `${int(e.messages / e.seconds)} messages/s end to end`],
      ["replies", `${int(e.replies)} of ${int(e.messages)}`, `exactly one each: ${verdict(e2eOk, "FAIL")}`],
      [
        "CPU ms per message",
        `${cpuPer(e.cpu, e.messages, "servers")}`,
        `servers (ingest + worker); Redis ${cpuPer(e.cpu, e.messages, "redis")}, nginx ${cpuPer(e.cpu, e.messages, "nginx")}, fakes + generator ${cpuPer(e.cpu, e.messages, "self")}`,
      ],
      [
        "PostgreSQL statements per message",
        fixed(statementsPer(e.postgres, e.postgres.transactions, e.postgres.ms, e.messages), 2),
        `transactions in the database (each statement of the service is one), net of ${int(e.postgres.idleTransactions)} in the idle window (pollers, sweepers)`,
      ],
      [
        "  with slow answers",
        fixed(statementsPer(e.postgres, slow.transactions, slow.ms, slow.messages), 2),
        `${int(slow.messages)} more mentions, the fake LLM holding each answer ${fixed(slow.holdMs / 1000, 0)} s (each claim renewed while it runs)`,
      ],
      [
        "workers alone",
        `${int(bl.replies / bl.result.seconds)} replies/s`,
        `the paused run's ${int(bl.jobs)} queued jobs answered in ${fixed(bl.result.seconds, 1)} s, servers ${cpuPer(bl.cpu, bl.replies, "servers")} CPU ms each`,
      ],
      [
        "after the live saturating run",
        `${fixed(r.liveDrainS, 1)} s`,
        "until the workers had answered everything it accepted",
      ],
    ]),
  );
  if (!e2eOk)
    failures.push(`end to end: ${e.replies} threads with exactly one reply of ${e.messages} (acked ${e.fire.ok})`);
  out.push("");

  // 4. Redis commands
  const { unique, idle, duplicate } = r.redis;
  const idleRate = (command: string) => (idle.commands.get(command) ?? 0) / idle.ms;
  const n = e.messages;
  const perUnique = (c: string) => (unique.commands.get(c) ?? 0) / n;
  const perUniqueNet = (c: string) => ((unique.commands.get(c) ?? 0) - idleRate(c) * unique.ms) / n;
  const perDup = (c: string) => (duplicate.commands.get(c) ?? 0) / n;
  const perDupNet = (c: string) => ((duplicate.commands.get(c) ?? 0) - idleRate(c) * duplicate.ms) / n;
  const uniqueNet = netPer(unique, idle, n);
  const dupNet = netPer(duplicate, idle, n);
  const trips = r.redis.duplicateRoundTrips;
  const { claimTrips, gateCalls, flushTrips, extraTrips } = duplicateTrips(trips);
  const dupOk = Math.abs(claimTrips / n - 1) < 0.01 && extraTrips / n < 0.02;
  out.push("4. Redis commands — INFO commandstats deltas (calls inside Lua scripts and MULTI blocks count one each)");
  out.push(
    `   windows: ${int(n)} unique events end to end (ingest + worker + stats flush) ${fixed(unique.ms / 1000, 1)} s · idle, no traffic, ${fixed(idle.ms / 1000, 1)} s · the same ${int(n)} again as duplicates ${fixed(duplicate.ms / 1000, 1)} s`,
  );
  const commands = [...new Set([...unique.commands.keys(), ...duplicate.commands.keys(), ...idle.commands.keys()])]
    .filter((c) => perUnique(c) >= 0.005 || perDup(c) >= 0.005 || (idle.commands.get(c) ?? 0) > 0)
    .sort((x, y) => perUnique(y) - perUnique(x) || perDup(y) - perDup(x));
  const rows: string[][] = [
    ["command", "per unique event", "− idle", "idle window", "per duplicate", "− idle"],
    [
      "all",
      fixed(unique.total / n, 2),
      fixed(uniqueNet, 2),
      int(idle.total),
      fixed(duplicate.total / n, 3),
      fixed(dupNet, 3),
    ],
  ];
  for (const c of commands) {
    rows.push([
      c,
      fixed(perUnique(c), 2),
      fixed(perUniqueNet(c), 2),
      int(idle.commands.get(c) ?? 0),
      fixed(perDup(c), 3),
      fixed(perDupNet(c), 3),
    ]);
  }
  out.push(...table(rows));
  out.push(
    "  (the idle window holds the queue's own polling — takeover checks, retry moves, blocking reads — scaled to each window and",
  );
  out.push(
    "   subtracted; the 1 s stats flush runs only when there is something to count, so it stays in the per-event figures)",
  );
  out.push("");
  out.push(
    `  The duplicates window under MONITOR, as round trips (a plain command, a script call or a MULTI…EXEC block is one;`,
  );
  out.push(
    `  connections named resident:<role>:<instance>; ${int(n)} duplicates; scripts ran ${int(totalCalls(trips.inScripts))} commands inside)`,
  );
  out.push(
    ...table([
      ["connection role", "round trip", "count", "deliveries carried", "per duplicate"],
      ...trips.rows.map((row) => [row.role, row.what, int(row.count), int(row.carried), fixed(row.count / n, 3)]),
    ]),
  );
  out.push(
    `  a duplicate waits on ${fixed(claimTrips / n, 3)} round trips for its claim (the admission script, or SET NX GET on a two-step lane; ${fixed(n / gateCalls, 1)} deliveries shared each) and ${fixed(extraTrips / n, 3)} other on the ack path;` +
      ` the stats flush adds ${fixed(flushTrips / n, 3)} (one MULTI per instance per second with traffic, shared by all deliveries)`,
  );
  out.push(
    `  commandstats per duplicate: ${fixed(dupNet, 3)} commands net of the idle background (every command inside the flush's MULTI counted)`,
  );
  out.push(`  target: a duplicate costs one Redis round trip   ${verdict(dupOk)}`);
  out.push("");

  // 4b. The twin storm
  const t = r.twinStorm;
  const stormNet = netPer(t.redis, idle, t.messages);
  const stormOk = t.exact === t.messages;
  out.push(
    `4b. Twin storm — ${int(t.messages)} messages, each as app_mention + message with 2–4 copies of each, side by side: ${int(t.deliveries)} deliveries (${fixed(t.deliveries / t.messages, 1)} a message) on ${s.connections} connections`,
  );
  const stormTop = [...t.redis.commands.entries()].sort((x, y) => y[1] - x[1]).slice(0, 12);
  out.push(
    ...table([
      ["command", "per message", "per delivery"],
      ["all", fixed(t.redis.total / t.messages, 2), fixed(t.redis.total / t.deliveries, 2)],
      ["all, net of the idle background", fixed(stormNet, 2), fixed((stormNet * t.messages) / t.deliveries, 2)],
      ...stormTop.map(([c, count]) => [c, fixed(count / t.messages, 2), fixed(count / t.deliveries, 2)]),
    ]),
  );
  out.push(
    `  acked ${int(t.fire.ok)} of ${int(t.fire.sent)} (${t.fire.non2xx} non-2xx), all answered after ${fixed(t.seconds, 2)} s; window ${fixed(t.redis.ms / 1000, 1)} s with the settle time`,
  );
  out.push(
    `  replies: ${int(t.exact)} of ${int(t.messages)} messages answered exactly once   ${verdict(stormOk, "FAIL")}`,
  );
  if (!stormOk) failures.push(`twin storm: ${t.exact} of ${t.messages} messages answered exactly once`);
  out.push("");

  // 5. Memory
  const mem = r.redis.memory;
  out.push(`5. Redis memory — the ${int(mem.events)}-event end-to-end batch, after every reply and the settle time`);
  out.push(
    `  used_memory +${bytes(mem.usedBytes)}, keys +${int(mem.keys)} → ${fixed(mem.keys / mem.events, 2)} keys and ${bytes(mem.usedBytes / mem.events)} per event, ${bytes(mem.keys > 0 ? mem.usedBytes / mem.keys : 0)} per live key`,
  );
  const perEvent = [
    "rsd:event:<ws>:<eventId>",
    "rsd:message:<ws>:<messageKey>",
    "rsd:reply:<ws>:<messageKey>",
    "rsd:conversation:<ws>:<conversation>",
  ]
    .map((pattern) => r.redis.audit.patterns.find((p) => p.pattern === pattern))
    .filter((p) => p !== undefined);
  if (perEvent.length > 0) {
    out.push(
      `  what one message leaves behind: ${perEvent.map((p) => `${p.pattern.split(":")[1]} key ${int(p.bytes)} B for ${p.ttlMaxMs > 0 ? duration(p.ttlMaxMs) : "?"}`).join(", ")}`,
    );
    const job = r.redis.audit.patterns.find((p) => p.pattern === "{rsd}:replies:job:<job>");
    if (job) out.push(`  plus its job's mark, ${int(job.bytes)} B, kept 1 h after the job completed`);
  }
  out.push("");

  // 6. Key growth
  const audit = r.redis.audit;
  out.push(`6. Key growth — SCAN of all ${int(audit.total)} keys after the run, TTL of each, MEMORY USAGE of a sample`);
  out.push(
    ...table([
      ["pattern", "owner", "type", "keys", "no TTL", "TTL left, max", "bytes/key"],
      ...audit.patterns.map((p) => [
        p.pattern,
        p.owner,
        p.type,
        int(p.count),
        int(p.withoutTtl),
        p.ttlMaxMs > 0 ? duration(p.ttlMaxMs) : "–",
        int(p.bytes),
      ]),
    ]),
  );
  const ourOffenders = audit.patterns.filter((p) => p.owner !== "queue" && p.withoutTtl > 0);
  const liveMarks = audit.patterns.filter((p) => p.pattern.endsWith(":job:<job>") && p.withoutTtl > 0);
  const keysOk = ourOffenders.length === 0;
  out.push(
    `  keys of ours (rsd:…) without a TTL: ${ourOffenders.reduce((a, p) => a + p.withoutTtl, 0)}   ${verdict(keysOk, "FAIL")}`,
  );
  for (const p of ourOffenders) out.push(`    ${p.pattern}: ${p.withoutTtl}, e.g. ${p.examplesWithoutTtl.join(", ")}`);
  if (liveMarks.length > 0) {
    out.push(
      `  job marks without a TTL: ${int(liveMarks.reduce((a, p) => a + p.withoutTtl, 0))} — the jobs still waiting, running or delayed; a mark gets`,
    );
    out.push("    its retention TTL (1 h completed, 7 d failed) when its job ends");
  }
  out.push(
    `  the queue's own keys: ${Object.entries(queueFixedKeys)
      .map(([name, what]) => `${name} (${what})`)
      .join("; ")}`,
  );
  if (!keysOk) failures.push(`${ourOffenders.length} key pattern(s) of ours hold keys without a TTL`);
  out.push("");

  // 7. kill -9 mid-storm
  const k = r.kill;
  out.push(
    `7. kill -9 mid-storm — ${int(k.messages)} messages as twins (${int(k.deliveries)} deliveries), the fake LLM holding each answer ${int(s.killHoldMs)} ms; shipped lease and lock`,
  );
  out.push(
    `  ${k.victim} killed holding ${k.inFlightAtKill} answers; ${k.redelivered} deliveries it left unacknowledged sent again, as Slack retries`,
  );
  out.push(
    `  the last of its in-flight messages answered ${fixed(k.lastAnsweredAfterMs / 1000, 1)} s after the kill   target ≤ 15 s   ${verdict(k.lastAnsweredAfterMs <= 15_000)}`,
  );
  out.push(
    `  every message answered exactly once, the dead instance's asked again once each   ${verdict(k.exact, "FAIL")}${k.exact ? "" : `: ${k.problems.join("; ")}`}`,
  );
  if (!k.exact) failures.push(`kill mid-storm: ${k.problems.join("; ")}`);
  out.push("");

  // Correctness over the whole run
  const c = r.correctness;
  const runOk =
    c.doubled === 0 && c.strangers === 0 && c.answeredThreads >= c.accepted && e.newPostsFromDuplicates === 0;
  out.push(
    `Whole run: ${int(c.accepted)} distinct deliveries acked, ${int(c.answeredThreads)} threads answered, ${c.doubled} answered twice, ${c.strangers} unknown, ${e.newPostsFromDuplicates} replies to duplicates   ${verdict(runOk, "FAIL")}`,
  );
  if (!runOk)
    failures.push(
      "exactly-once: a thread answered twice, an unknown reply, a duplicate answered, or an acked message unanswered",
    );

  out.push("");
  out.push(
    `Targets: ingest ≥ ${targets.ratio} × baseline ${verdict(ratio >= targets.ratio)} · a duplicate costs one round trip ${verdict(dupOk)} · every key of ours expires ${verdict(keysOk, "FAIL")} · exactly one reply each ${verdict(e2eOk && runOk, "FAIL")}`,
  );
  out.push(
    "Speed targets are reported, never fatal (machines are noisy); the exit code is for correctness and key growth.",
  );

  out.push("");
  out.push(...issueTable(r, before));

  return { text: out.join("\n"), failures };
}

const printoutFence = "```text\n";

const resultsHead = [
  "# Benchmark results",
  "",
  "The latest printout of `npm run bench` (infra/bench/run.ts), written by the run itself; the machine it ran on is in",
  "its first lines. What each section measures and how: infra/bench/README.md.",
  "",
  "",
].join("\n");

/**
 * RESULTS.md with `printout` as its printout, the file's last block. What `current` holds above its printout (a
 * summary written by hand across runs and machines) is kept, so that a run replaces only its own figures.
 */
export function resultsMarkdown(printout: string, current: string): string {
  const fence = current.lastIndexOf(printoutFence);
  const head = fence >= 0 ? current.slice(0, fence) : resultsHead;
  return `${head}${printoutFence}${printout}\n\`\`\`\n`;
}
