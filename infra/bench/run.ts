/**
 * `npm run bench`: in one run, on the same nginx template and instance count,
 *  - a no-op baseline (baseline-server.mjs: a bare fastify route answering 200) and the real ingest path (resident
 *    instances, one Slack workspace, an instant fake LLM), both fed correctly signed, distinct Slack deliveries
 *    prepared before any clock starts: accepted events/s (closed loop) and ack latency at a fixed rate (open loop);
 *    between them the floor (floor-server.mjs: the ack's necessary work alone), in the rounds and at the rate;
 *  - the same closed-loop run and fixed rate with Redis killed (deliveries taken in by the PostgreSQL lane);
 *  - end-to-end throughput: N mentions in, time until N replies are at the fake Slack, exactly one each;
 *  - Redis: commands per unique event and per duplicate (INFO commandstats, background measured over an idle interval
 *    of the same length and subtracted), memory per live key, and a key audit (everything of ours must expire).
 * With `BENCH_BEFORE=<commit>` it first takes an earlier commit's service through the same steps (before.ts), and
 * issue 10's table shows its figures beside this checkout's: the issue's "before", on the same machine in one run.
 * It prints a table and writes the same as infra/bench/RESULTS.md's printout, below the summary kept there by hand.
 * It exits non-zero only for a correctness failure (a wrong reply count) or a key of ours without a TTL, never for
 * speed: machines are noisy.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { type DeployedSlackWorkspace, type Deployment, startDeployment } from "@resident/testkit/deployment";
import { type Baseline, startBaseline } from "./baseline.ts";
import { checkoutBefore, startBefore } from "./before.ts";
import { type CpuGroups, type CpuUse, cpuUse, sampleCpu } from "./cpu.ts";
import { killMidStorm } from "./kill.ts";
import { type ClosedLoopResult, closedLoop, Pacer, type PreparedRequest, RequestFeed } from "./load.ts";
import { describeMachine } from "./machine.ts";
import { type Mention, mention } from "./mention.ts";
import { CommandMonitor } from "./monitor.ts";
import { countsSettleMs, PostgresProbe } from "./postgres-probe.ts";
import { commandDelta, type KeyAudit, RedisProbe, type RedisSnapshot, totalCalls } from "./redis-probe.ts";
import { type Measured, type ObservedOpenLoop, type Report, render, renderLatency, resultsMarkdown } from "./report.ts";
import { mergeRounds } from "./rounds.ts";
import { signedStorm, twinStorm } from "./storm.ts";
import type { BenchDeployment, Subject } from "./subject.ts";
import type { IssueRun } from "./targets.ts";

const settings = {
  instances: 3,
  /** Closed-loop connections for the saturating runs. */
  connections: 64,
  saturateS: Number(process.env.BENCH_SATURATE_S ?? 6),
  /**
   * The ack path's ratio to the baseline: alternating rounds, baseline, floor, then ack path, `ratioRoundS` each; the
   * ratio is the rounds' median. A shared VM's speed drifts by a third within minutes, and one long run of each side
   * read that drift as often as the code.
   */
  ratioRounds: 3,
  ratioRoundS: Number(process.env.BENCH_RATIO_ROUND_S ?? 3),
  /** Closed-loop warm-up before anything is measured (JIT, pools, every instance's workspace cache). */
  baselineWarmupS: 3,
  /** The floor's, of distinct deliveries: as long as the ack path's, distinct and duplicates together. */
  floorWarmupS: 8,
  ingestWarmupS: Number(process.env.BENCH_WARMUP_S ?? 4),
  ingestWarmupDuplicatesS: 8,
  /**
   * Distinct deliveries prepared for the ingest warm-up: the baseline's warm-up rate times this many seconds (the
   * ack path is slower than the bare route), at least `warmupPoolMin`. What is not sent is dropped.
   */
  warmupPoolSeconds: 6,
  warmupPoolMin: 30_000,
  /**
   * The open-loop rate, as a share of the ack path's closed-loop capacity. Not 50 %: at a steady rate each request
   * batches less with others (fewer requests per event-loop turn and per socket write) and costs ~1.5× the CPU it
   * costs at saturation, so on two shared cores 50 % was already saturated (p50 0.3 s).
   */
  rateShare: 0.3,
  rateS: Number(process.env.BENCH_RATE_S ?? 6),
  /**
   * Each side's window follows a lead-in at its rate, not counted: the baseline's and the floor's servers and the pacer
   * have sat idle through the drain, and the first of them to run took their cold start in its window
   * (infra/bench/JOURNAL.md, "A thirty-eighth machine").
   */
  rateLeadInS: 2,
  /** Sockets the open-loop client may use at once (it queues beyond that, and the queueing counts as latency). */
  rateSockets: 64,
  /** The light client's rate beside the fixed rate (section 2). */
  observerRate: 50,
  /** Mentions in the end-to-end batch (also the Redis command and memory batch). */
  e2eMessages: Number(process.env.BENCH_E2E ?? 2_000),
  e2eConnections: 32,
  /** Time given after the last reply for the queue's settlement and the 1 s stats flush. */
  settleMs: 2_500,
  /** The idle window is as long as the end-to-end one, up to this; the background is scaled by length anyway. */
  idleCapMs: 8_000,
  /** Longest wait for the workers to answer everything accepted (a busy shared machine is slow, not wrong). */
  drainTimeoutMs: 240_000,
  /** Messages of the twin storm (6 deliveries each). */
  stormMessages: Number(process.env.BENCH_STORM ?? 500),
  /** Messages of the kill -9 storm, and how long the fake LLM holds each answer so the victim dies holding some. */
  killMessages: 240,
  killHoldMs: 1_000,
  /**
   * Mentions whose answers the fake LLM holds `slowHoldMs`: past a third of the shipped 10 s claim lease, so each
   * answer's claim is renewed while it runs, as a real LLM call of several seconds has it.
   */
  slowMessages: 144,
  slowHoldMs: 4_000,
};

/** `BENCH_ONLY=latency`: sections 1 and 2 (closed loop, fixed rate), printed, not written to RESULTS.md. */
const onlyLatency = process.env.BENCH_ONLY === "latency";
if (process.env.BENCH_ONLY !== undefined && !onlyLatency) throw new Error("BENCH_ONLY takes one value: latency");

/** `BENCH_BEFORE=<commit>`: issue 10's "before" measured in this run (before.ts). */
const beforeCommit = process.env.BENCH_BEFORE || undefined;
if (beforeCommit && onlyLatency)
  throw new Error("BENCH_BEFORE fills issue 10's whole table: not with BENCH_ONLY=latency");

const say = (line = "") => process.stdout.write(`${line}\n`);
const step = (line: string) => process.stderr.write(`· ${line}\n`);

// ─── Start-up and clean-up ──────────────────────────────────────────────────────────────────────────────────────

let baseline: Baseline | undefined;
let floor: Baseline | undefined;
let database: PostgresProbe | undefined;
let pacer: Pacer | undefined;
let observer: Pacer | undefined;
/** The deployments running now (this checkout's, or the earlier commit's while it is measured). */
const subjects = new Set<Subject>();
let closing: Promise<void> | undefined;
const closeAll = () =>
  (closing ??= (async () => {
    pacer?.close();
    observer?.close();
    await database?.close().catch(() => {});
    await Promise.allSettled([...[...subjects].map((s) => s.close()), baseline?.close(), floor?.close()]);
  })());

let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    // A second signal: leave now; the exit hooks still kill every child by pid.
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping everything this bench started…\n`);
    const force = setTimeout(() => process.exit(130), 15_000);
    void closeAll().finally(() => {
      clearTimeout(force);
      process.exit(130);
    });
  });
}

// ─── The run ────────────────────────────────────────────────────────────────────────────────────────────────────

/** The bare baseline and the open-loop pacers: started once, used against every subject. */
interface Shared {
  base: Baseline;
  openLoop: Pacer;
  observer: Pacer;
}

async function main(): Promise<number> {
  const machine = await describeMachine();
  const startedAt = performance.now();
  const before = beforeCommit ? await checkoutBefore(beforeCommit, step) : undefined;
  // The instances run what ships (`npm start`'s build), not the sources under tsx, which cost the ack 1.07 × the
  // build's CPU (infra/bench/JOURNAL.md, "The build, as it ships"); the build's step is `npm start`'s own.
  step("building the service (npm run build, as `npm start` does)");
  await promisify(execFile)("npm", ["run", "build", "--silent"]);
  step(`starting ${settings.instances} baseline processes + nginx, and the fixed rate's pacers`);
  const [bare, paceProcess, observeProcess] = await Promise.allSettled([
    startBaseline(settings.instances),
    Pacer.start(),
    Pacer.start(),
  ]);
  if (paceProcess.status === "fulfilled") pacer = paceProcess.value;
  if (observeProcess.status === "fulfilled") observer = observeProcess.value;
  if (bare.status === "fulfilled") baseline = bare.value;
  if (bare.status === "rejected") throw bare.reason;
  if (paceProcess.status === "rejected") throw paceProcess.reason;
  if (observeProcess.status === "rejected") throw observeProcess.reason;
  const shared: Shared = { base: baseline as Baseline, openLoop: pacer as Pacer, observer: observer as Pacer };

  // Issue 10's "before": the earlier commit's service through the same steps, first and alone on the machine.
  let beforeRun: { run: IssueRun; sha: string } | undefined;
  if (before) {
    step(`before: ${before.sha}'s service, ${settings.instances} instances + nginx, started by its own testkit`);
    const subject = await started(startBefore(before.dir, settings.instances));
    beforeRun = { run: await issueRunOf(subject, shared), sha: before.sha };
    await subject.close();
    subjects.delete(subject);
  }

  step(`starting ${settings.instances} resident instances + nginx`);
  const subject = await started(startNow());
  const { dep, ws, redis } = subject;
  floor = await startBaseline(settings.instances, {
    kind: "floor",
    redisUrl: dep.redis.url,
    signingSecret: ws.signingSecret,
  });
  database = await PostgresProbe.connect(dep.database.url);
  const pg = database;
  const sent = new Sent(ws);

  const ack = await ackPath(subject, sent, shared, redis, floor);
  // The floor is done with: its processes stop, and its keys leave Redis before anything there is counted.
  await floor.close();
  floor = undefined;
  for (const pattern of ["floor:*", "{floor}:*"]) await redis.unlinkMatching(pattern);
  // Sections 1 and 2: all a BENCH_ONLY=latency run prints.
  const latency = { ...ack, floorMax: mergeRounds(ack.floorRounds) };
  if (onlyLatency) {
    const run = { machine, settings: { ...settings, rate: ack.rate }, totalS: (performance.now() - startedAt) / 1000 };
    say(renderLatency({ ...run, ...latency }).join("\n"));
    step("BENCH_ONLY=latency: sections 1 and 2 only; RESULTS.md left as it was");
    return 0;
  }
  const windows = await redisWindows(subject, sent, shared, redis, pg);

  const outage = await redisOutage(subject, sent, shared, ack.ingestLive.result.perSecond);
  const correctness = await settle(subject, sent);
  step("auditing every key in Redis");
  const audit: KeyAudit = await redis.audit();
  // Last, for it leaves one instance dead: kill -9 mid-storm, and how long its in-flight messages wait for an answer.
  const counts = dep.slack.countsByThread();
  const killed = await killStep(subject);

  const report: Report = {
    machine,
    settings: { ...settings, rate: ack.rate },
    totalS: (performance.now() - startedAt) / 1000,
    ...latency,
    outage,
    twinStorm: windows.twinStorm,
    kill: killed,
    e2e: {
      ...windows.e2e,
      replies: windows.batch.filter((m) => counts.get(m.thread) === 1).length,
      postgres: windows.postgres,
    },
    redis: { ...windows.redis, audit },
    correctness: { ...correctness, e2eExact: windows.batch.every((m) => counts.get(m.thread) === 1) },
  };
  const { text, failures } = render(report, beforeRun);
  say(text);
  const results = new URL("./RESULTS.md", import.meta.url);
  await writeFile(results, resultsMarkdown(text, existsSync(results) ? await readFile(results, "utf8") : ""));
  step("written to infra/bench/RESULTS.md");
  if (failures.length > 0) {
    process.stderr.write(
      `\nbench: ${failures.length} check(s) failed:\n${failures.map((f) => `  - ${f}`).join("\n")}\n`,
    );
    return 1;
  }
  return 0;
}

/** This checkout's service, from its build, with the probe that counts its Redis (its queue's depth too). */
async function startNow(): Promise<Subject & { dep: Deployment; redis: RedisProbe }> {
  const dep = await startDeployment({ instances: settings.instances, platforms: ["slack"], entry: "build" });
  try {
    // Posted answers (one chat.postMessage each, counted as they land), not streamed: the figures the issue was
    // filed with were, and a stream takes more Slack calls an answer (start, append, stop).
    const ws = await dep.connectSlack({ streaming: false });
    const redis = new RedisProbe(dep.redis.url);
    return {
      dep,
      ws,
      redis,
      // Every LLM call held until resumed: each instance's consumer takes as many jobs as it runs at once and waits
      // on them, the others wait in the stream.
      workers: heldAtTheLlm(dep),
      queueDepth: () => redis.queueDepth(),
      close: async () => {
        redis.close();
        await dep.close();
      },
    };
  } catch (error) {
    await dep.close();
    throw error;
  }
}

/** Workers paused by holding every LLM call; a held job is a call made since the pause. */
function heldAtTheLlm(dep: Deployment): Subject["workers"] {
  let callsAtPause = 0;
  return {
    pause: () => {
      callsAtPause = dep.llm.callCount();
      dep.llm.hold(Number.POSITIVE_INFINITY);
    },
    resume: () => dep.llm.clearFaults(),
    held: () => dep.llm.callCount() - callsAtPause,
  };
}

/** Registers a subject for clean-up as soon as it is up. */
async function started<S extends Subject>(starting: Promise<S>): Promise<S> {
  const subject = await starting;
  subjects.add(subject);
  return subject;
}

/**
 * The earlier commit's part of the run: the same steps as this checkout's, without what it could not do or
 * measure (the floor is this checkout's code; the outage lane and the key audit read today's keys and metrics).
 */
async function issueRunOf(subject: Subject, shared: Shared): Promise<IssueRun> {
  const sent = new Sent(subject.ws);
  const redis = new RedisProbe(subject.dep.redis.url);
  const pg = await PostgresProbe.connect(subject.dep.database.url);
  try {
    const ack = await ackPath(subject, sent, shared, redis);
    const windows = await redisWindows(subject, sent, shared, redis, pg);
    const correctness = await settle(subject, sent);
    const kill = await killStep(subject);
    if (correctness.doubled > 0 || !kill.exact)
      step(`before: ${correctness.doubled} threads answered twice; the kill: ${kill.problems.join("; ") || "exact"}`);
    return { settings: { ...settings, rate: ack.rate }, ...ack, ...windows, kill };
  } finally {
    redis.close();
    await pg.close();
  }
}

/** What one subject has been sent: the threads its answers must land in, and how many distinct deliveries it acked. */
class Sent {
  readonly threads: string[] = [];
  accepted = 0;

  constructor(private readonly ws: DeployedSlackWorkspace) {}

  mentions(count: number): Mention[] {
    const out: Mention[] = new Array(count);
    for (let i = 0; i < count; i++) out[i] = mention(this.ws, i);
    for (const m of out) this.threads.push(m.thread);
    return out;
  }

  /** Drops the last `count` threads: prepared for a run but never sent. */
  forget(count: number): void {
    this.threads.length -= Math.max(0, count);
  }
}

const measured = async <T>(groups: CpuGroups, run: () => Promise<T>): Promise<Measured<T>> => {
  const before = await sampleCpu(groups);
  const result = await run();
  const cpu: CpuUse = cpuUse(before, await sampleCpu(groups));
  return { result, cpu };
};

/** The open-loop pacers' processes are a group of their own, so that they do not count as other processes. */
const pacerCpu = (shared: Shared) => ({ pacer: [shared.openLoop.pid, shared.observer.pid] });

function cpuOf(subject: Subject, shared: Shared): CpuGroups {
  const { dep } = subject;
  return {
    ...pacerCpu(shared),
    servers: dep.instances.map((instance) => instance.pid ?? 0),
    nginx: dep.nginx ? [dep.nginx.process.pid] : [],
    redis: dep.redis.pid ? [dep.redis.pid] : [],
  };
}

/**
 * Sections 1 and 2: the warm-up, the closed loop's alternating rounds (the baseline, the floor where there is one,
 * the ack path with the workers paused), the backlog's drain, the fixed rate, and the closed loop with the workers
 * live.
 */
async function ackPath(subject: Subject, sent: Sent, shared: Shared, redis: RedisProbe, floorServers?: Baseline) {
  const { dep, ws, workers } = subject;
  const { base } = shared;
  const conn = settings.connections;
  const baselineCpu: CpuGroups = { servers: base.pids, nginx: [base.nginxPid], ...pacerCpu(shared) };
  const floorCpu = (f: Baseline): CpuGroups => ({
    servers: f.pids,
    nginx: [f.nginxPid],
    redis: dep.redis.pid ? [dep.redis.pid] : [],
    ...pacerCpu(shared),
  });

  // Warm-up. V8 optimises a function only after many calls, and each instance sees only its share of the requests:
  // measured after a warm-up of 2 000 requests, the ack path cost twice the CPU it costs after 15 000. Distinct
  // deliveries first (with the queue paused: they run every step, enqueue included), then the same deliveries again
  // as duplicates, which run all but the enqueue and leave no jobs behind to answer. The warm-up's jobs are answered
  // in the first drain, which warms the workers in turn.
  step(
    `warming up: baseline ${settings.baselineWarmupS} s;${floorServers ? ` floor ${settings.floorWarmupS} s;` : ""} ingest ${settings.ingestWarmupS} s of distinct deliveries, ${settings.ingestWarmupDuplicatesS} s of duplicates (queue paused)`,
  );
  await workers.pause();
  // The baseline's and the floor's bodies never reach resident, so they are not among the threads sent.
  const mentionsElsewhere = (count: number) => Array.from({ length: count }, (_, i) => mention(ws, i));
  const baselineWarmup = await closedLoop(base.url, new RequestFeed(mentionsElsewhere(5_000), true), {
    connections: conn,
    durationS: settings.baselineWarmupS,
  });
  const roundsS = settings.ratioRounds * settings.ratioRoundS;
  const roundsPool = (warmupRate: number) => Math.ceil(Math.max(1_000, warmupRate) * 4 * roundsS) + 5_000;
  // The floor queues what it is sent, so its deliveries are distinct too, and its pools are sized as the ack's are:
  // on a cold warm-up's rate, with room, for the warm floor has gone faster than the baseline's warm-up.
  let floorFeed: RequestFeed | undefined;
  if (floorServers) {
    const floorWarmupPool = Math.ceil(baselineWarmup.perSecond * 2 * settings.floorWarmupS) + 5_000;
    const floorWarmup = await closedLoop(floorServers.url, new RequestFeed(mentionsElsewhere(floorWarmupPool)), {
      connections: conn,
      durationS: settings.floorWarmupS,
    });
    floorFeed = new RequestFeed(mentionsElsewhere(roundsPool(floorWarmup.perSecond)));
  }
  const warmBodies = sent.mentions(
    Math.max(settings.warmupPoolMin, Math.ceil(baselineWarmup.perSecond * settings.warmupPoolSeconds)),
  );
  const warmFeed = new RequestFeed(warmBodies);
  const warmup = await closedLoop(dep.url, warmFeed, { connections: conn, durationS: settings.ingestWarmupS });
  sent.accepted += warmup.ok;
  sent.forget(warmBodies.length - warmFeed.taken);
  await closedLoop(dep.url, new RequestFeed(warmBodies.slice(0, warmFeed.taken), true), {
    connections: conn,
    durationS: settings.ingestWarmupDuplicatesS,
  });

  // Accepted events/s: closed loop, same connections and duration, the same signed bodies.
  const saturation = sent.mentions(roundsPool(warmup.perSecond));
  const pausedFeed = new RequestFeed(saturation);
  const baselineRounds: Measured<ClosedLoopResult>[] = [];
  const floorRounds: Measured<ClosedLoopResult>[] = [];
  const ingestRounds: Measured<ClosedLoopResult>[] = [];
  const roundRatios: number[] = [];
  const floorRatios: number[] = [];
  const round = { connections: conn, durationS: settings.ratioRoundS };
  step(
    `baseline,${floorServers ? " floor," : ""} then ingest with the workers paused (the ack path alone): ${conn} connections, ${settings.ratioRounds} rounds of ${settings.ratioRoundS} s a side`,
  );
  for (let i = 0; i < settings.ratioRounds; i++) {
    const baseline = await measured(baselineCpu, () => closedLoop(base.url, new RequestFeed(saturation, true), round));
    baselineRounds.push(baseline);
    if (floorServers && floorFeed) {
      const feed = floorFeed;
      const floored = await measured(floorCpu(floorServers), () => closedLoop(floorServers.url, feed, round));
      floorRounds.push(floored);
      floorRatios.push(floored.result.perSecond / baseline.result.perSecond);
    }
    const ingest = await measured(cpuOf(subject, shared), () => closedLoop(dep.url, pausedFeed, round));
    ingestRounds.push(ingest);
    roundRatios.push(ingest.result.perSecond / baseline.result.perSecond);
  }
  const baselineMax = mergeRounds(baselineRounds);
  const ingestPaused = mergeRounds(ingestRounds);
  sent.accepted += ingestPaused.result.ok;
  sent.forget(saturation.length - pausedFeed.taken);

  step("resuming the queue: the workers answer the backlog, nothing else running");
  const backlogJobs = await subject.queueDepth();
  const postsBeforeBacklog = postCount(dep);
  const backlogDrain = await measured(cpuOf(subject, shared), async () => {
    await workers.resume();
    return drain(subject, sent.accepted);
  });
  const backlog = { ...backlogDrain, jobs: backlogJobs, replies: postCount(dep) - postsBeforeBacklog };
  // The backlog's writes grow the AOF towards its next rewrite, whose fork and child would land in the first window
  // to write to Redis (the floor's, in both runs watched on the thirty-eighth machine) and not in the ack's after it.
  await rewriteAofNow(redis);

  // Ack latency at a fixed rate below saturation, the same rate for both; the ack path alone again.
  const rate = Math.max(10, Math.round(ingestPaused.result.perSecond * settings.rateShare));
  const paced = sent.mentions(Math.ceil(rate * settings.rateS));
  const rateOptions = { rate, durationS: settings.rateS, sockets: settings.rateSockets };
  // Beside the fixed rate, a light client of its own process at `observerRate`: at ~1,000/s the pacer spends ~0.3
  // cores of its own and, on a busy machine, queues; the light one sees the servers' latency at that load without it.
  const observerOptions = { rate: settings.observerRate, durationS: settings.rateS, sockets: 8 };
  const observedLoop = (url: string, feed: RequestFeed, observerFeed: RequestFeed) =>
    Promise.all([
      shared.openLoop.run(url, feed, rateOptions),
      shared.observer.run(url, observerFeed, observerOptions),
    ]).then(([load, light]) => ({ ...load, observed: light }));
  const observing = sent.mentions(Math.ceil(settings.observerRate * settings.rateS));
  const leadIn = (url: string, feed: RequestFeed) =>
    shared.openLoop.run(url, feed, { ...rateOptions, durationS: settings.rateLeadInS });
  const leadInLength = Math.ceil(rate * settings.rateLeadInS);
  step(`baseline: open loop at ${rate}/s for ${settings.rateS} s, and a ${settings.observerRate}/s client beside it`);
  await leadIn(base.url, new RequestFeed(paced, true));
  const baselineRate = await measured(baselineCpu, () =>
    observedLoop(base.url, new RequestFeed(paced, true), new RequestFeed(observing, true)),
  );
  // The floor at the same rate, as in section 1: whether the ack's tail is its necessary work's or its layers'.
  let floorRate: Measured<ObservedOpenLoop> | undefined;
  if (floorServers) {
    step("floor: the same");
    await leadIn(floorServers.url, new RequestFeed(mentionsElsewhere(leadInLength)));
    floorRate = await measured(floorCpu(floorServers), () =>
      observedLoop(
        floorServers.url,
        new RequestFeed(mentionsElsewhere(paced.length)),
        new RequestFeed(mentionsElsewhere(observing.length)),
      ),
    );
  }
  step(`ingest, workers paused: the same`);
  await workers.pause();
  await holdEverySlot(subject, sent);
  sent.accepted += (await leadIn(dep.url, new RequestFeed(sent.mentions(leadInLength)))).ok;
  const ingestRate = await measured(cpuOf(subject, shared), () =>
    observedLoop(dep.url, new RequestFeed(paced), new RequestFeed(observing)),
  );
  sent.accepted += ingestRate.result.ok + ingestRate.result.observed.ok;
  await workers.resume();
  await drain(subject, sent.accepted);

  // The same saturating run as deployed: every instance also answers what it takes in (ROLE=all).
  const live = sent.mentions(
    Math.ceil(Math.max(1_000, ingestPaused.result.perSecond) * 2 * settings.saturateS) + 5_000,
  );
  step(`ingest, workers live (as deployed): ${conn} connections for ${settings.saturateS} s`);
  const liveFeed = new RequestFeed(live);
  const ingestLive = await measured(cpuOf(subject, shared), () =>
    closedLoop(dep.url, liveFeed, { connections: conn, durationS: settings.saturateS }),
  );
  sent.accepted += ingestLive.result.ok;
  sent.forget(live.length - liveFeed.taken);
  step("waiting for the workers to answer the rest");
  const liveDrain = await drain(subject, sent.accepted);
  return {
    baselineMax,
    floorRounds,
    ingestPaused,
    roundRatios,
    floorRatios,
    ingestLive,
    backlog,
    liveDrainS: liveDrain.seconds,
    baselineRate,
    floorRate,
    ingestRate,
    rate,
  };
}

/**
 * Section 1's ack rounds run with the workers holding every job they run at once, taken during the warm-up; the fixed
 * rate comes after a drain, and its window would open with the workers taking up jobs (infra/bench/JOURNAL.md, "A
 * thirty-fifth machine"). Before its clock starts, mentions go in until the workers sit on all they take and one
 * job more waits in the queue.
 */
async function holdEverySlot(subject: Subject, sent: Sent): Promise<void> {
  const batchSize = 4 * settings.instances;
  for (let sentSoFar = 0; sentSoFar < 1_000; sentSoFar += batchSize) {
    const fire = await closedLoop(subject.dep.url, new RequestFeed(sent.mentions(batchSize)), {
      connections: batchSize,
      amount: batchSize,
    });
    sent.accepted += fire.ok;
    // Until the workers have taken what they will: a job taken makes its LLM call within a few milliseconds.
    let held = -1;
    let steadySince = performance.now();
    await until(
      () => {
        const now = subject.workers.held();
        if (now !== held) [held, steadySince] = [now, performance.now()];
        return performance.now() - steadySince >= 200;
      },
      settings.drainTimeoutMs,
      "the paused workers to take up their jobs",
    );
    const queued = await subject.queueDepth();
    if (queued > held) {
      step(`the workers hold ${held} jobs and ${queued - held} more wait: the clock starts`);
      return;
    }
  }
  throw new Error("the workers took every job sent to fill their slots: are they paused?");
}

/**
 * Sections 3 to 4b: the end-to-end batch with Redis' and PostgreSQL's counters around it, an idle
 * window for the background's share, the same batch again as duplicates under MONITOR, and the twin storm.
 */
async function redisWindows(subject: Subject, sent: Sent, shared: Shared, redis: RedisProbe, pg: PostgresProbe) {
  const { dep, ws } = subject;
  const n = settings.e2eMessages;
  const batch = sent.mentions(n);
  // PostgreSQL's counts of the run before must be in before the end-to-end window opens.
  await sleep(countsSettleMs);
  step(`end to end: ${n} mentions, until ${n} replies are at the fake Slack`);
  const uniqueBefore = await redis.snapshot();
  const pgBefore = await pg.snapshot();
  const e2e = await measured(cpuOf(subject, shared), () =>
    fireUntilAnswered(dep, batch, settings.e2eConnections, n, "the end-to-end replies"),
  );
  sent.accepted += e2e.result.fire.ok;
  await sleep(settings.settleMs);
  const uniqueAfter = await redis.snapshot();
  await sleep(countsSettleMs - settings.settleMs);
  const pgAfter = await pg.snapshot();
  const windowMs = uniqueAfter.at - uniqueBefore.at;

  const idleMs = Math.min(windowMs, settings.idleCapMs);
  step(`idle: ${(idleMs / 1000).toFixed(1)} s with no traffic, for the background's share`);
  const idleBefore = await redis.snapshot();
  const pgIdleBefore = await pg.snapshot();
  await sleep(idleMs);
  const idleAfter = await redis.snapshot();
  const pgIdleAfter = await pg.snapshot();
  const slow = await slowAnswers(subject, sent, pg);

  step(`duplicates: the same ${n} deliveries again, under MONITOR`);
  const postsBeforeDuplicates = postCount(dep);
  const monitor = await CommandMonitor.start(redis.client);
  const dupBefore = await redis.snapshot();
  const dupFire = await closedLoop(dep.url, new RequestFeed(batch), {
    connections: settings.e2eConnections,
    amount: n,
  });
  await sleep(settings.settleMs);
  const dupAfter = await redis.snapshot();
  const dupRoundTrips = await monitor.stop();
  const postsAfterDuplicates = postCount(dep);

  // The twin storm: each message as app_mention + message, 2–4 copies each, side by side (6 deliveries a message).
  const storm = twinStorm(ws, settings.stormMessages, (i) => `bench stormed question ${i}: when does the office open?`);
  for (const message of storm) sent.threads.push(message.thread);
  const stormRequests = signedStorm(ws, storm);
  step(`twin storm: ${storm.length} messages as ${stormRequests.length} deliveries, until each is answered`);
  const stormBefore = await redis.snapshot();
  const stormed = await fireUntilAnswered(
    dep,
    stormRequests,
    settings.connections,
    storm.length,
    "the storm's replies",
  );
  await sleep(settings.settleMs);
  const stormAfter = await redis.snapshot();
  sent.accepted += storm.length;
  const stormCounts = dep.slack.countsByThread();
  return {
    batch,
    postgres: {
      transactions: pgAfter.transactions - pgBefore.transactions,
      ms: pgAfter.at - pgBefore.at,
      idleTransactions: pgIdleAfter.transactions - pgIdleBefore.transactions,
      idleMs: pgIdleAfter.at - pgIdleBefore.at,
      slow,
    },
    e2e: {
      messages: n,
      ...e2e.result,
      cpu: e2e.cpu,
      duplicatesFire: dupFire,
      newPostsFromDuplicates: postsAfterDuplicates - postsBeforeDuplicates,
    },
    redis: {
      unique: windowOf(uniqueBefore, uniqueAfter),
      idle: windowOf(idleBefore, idleAfter),
      duplicate: windowOf(dupBefore, dupAfter),
      duplicateRoundTrips: dupRoundTrips,
      memory: {
        usedBytes: uniqueAfter.usedMemory - uniqueBefore.usedMemory,
        keys: uniqueAfter.keys - uniqueBefore.keys,
        events: n,
      },
    },
    twinStorm: {
      messages: storm.length,
      deliveries: stormRequests.length,
      fire: stormed.fire,
      seconds: stormed.seconds,
      redis: windowOf(stormBefore, stormAfter),
      exact: storm.filter((m) => stormCounts.get(m.thread) === 1).length,
    },
  };
}

/** Fires `requests` in a closed loop, then waits until `answers` more replies are at the fake Slack. */
async function fireUntilAnswered(
  dep: BenchDeployment,
  requests: readonly PreparedRequest[],
  connections: number,
  answers: number,
  what: string,
) {
  const postsBefore = postCount(dep);
  const started = performance.now();
  const fire = await closedLoop(dep.url, new RequestFeed(requests), { connections, amount: requests.length });
  const acksDoneS = (performance.now() - started) / 1000;
  await until(() => postCount(dep) - postsBefore >= answers, settings.drainTimeoutMs, what);
  return { fire, acksDoneS, seconds: (performance.now() - started) / 1000 };
}

/** Section 3's slow answers: the database's statements around mentions whose answers outlast a third of the lease. */
async function slowAnswers(subject: Subject, sent: Sent, pg: PostgresProbe) {
  const { dep } = subject;
  const n = settings.slowMessages;
  const batch = sent.mentions(n);
  step(
    `slow answers: ${n} mentions, the fake LLM holding each answer ${settings.slowHoldMs} ms, until each is answered`,
  );
  const before = await pg.snapshot();
  dep.llm.hold(settings.slowHoldMs);
  const { fire } = await fireUntilAnswered(dep, batch, settings.e2eConnections, n, "the slow answers");
  sent.accepted += fire.ok;
  dep.llm.clearFaults();
  await sleep(countsSettleMs);
  const after = await pg.snapshot();
  return {
    messages: n,
    holdMs: settings.slowHoldMs,
    transactions: after.transactions - before.transactions,
    ms: after.at - before.at,
  };
}

/** Section 2b: Redis killed; the same closed loop (workers live) and a fixed rate, taken in by PostgreSQL. */
async function redisOutage(subject: Subject & { dep: Deployment }, sent: Sent, shared: Shared, liveRate: number) {
  const { dep } = subject;
  const conn = settings.connections;
  step("Redis outage: killing Redis, waiting for every instance to take deliveries in through PostgreSQL");
  const outageStarted = performance.now();
  await dep.redis.kill();
  await until(() => redisUpEverywhere(dep, false), 30_000, "every instance to see Redis down");
  const switchMs = performance.now() - outageStarted;
  const downLive = sent.mentions(Math.ceil(Math.max(1_000, liveRate) * 2 * settings.saturateS) + 5_000);
  step(`ingest with Redis down, workers live: ${conn} connections for ${settings.saturateS} s`);
  const downFeed = new RequestFeed(downLive);
  const outageClosed = await measured(cpuOf(subject, shared), () =>
    closedLoop(dep.url, downFeed, { connections: conn, durationS: settings.saturateS }),
  );
  sent.accepted += outageClosed.result.ok;
  sent.forget(downLive.length - downFeed.taken);
  // The fixed rate: the same share of what the PostgreSQL lane takes (workers live), run again once Redis is back.
  const outageRateValue = Math.max(10, Math.round(outageClosed.result.perSecond * settings.rateShare));
  const outageRateOptions = { rate: outageRateValue, durationS: settings.rateS, sockets: settings.rateSockets };
  const outageFixedRate = () =>
    measured(cpuOf(subject, shared), () =>
      shared.openLoop.run(
        dep.url,
        new RequestFeed(sent.mentions(Math.ceil(outageRateValue * settings.rateS))),
        outageRateOptions,
      ),
    );
  step(`ingest with Redis down: open loop at ${outageRateValue}/s for ${settings.rateS} s`);
  const outageRate = await outageFixedRate();
  sent.accepted += outageRate.result.ok;
  step("Redis back (AOF): waiting for every instance to switch back, and for the answers");
  const backAt = performance.now();
  await dep.redis.restart();
  await until(() => redisUpEverywhere(dep, true), 30_000, "every instance to see Redis up");
  const healMs = performance.now() - backAt;
  const outageDrain = await drain(subject, sent.accepted);
  step(`ingest with Redis back, workers live: open loop at ${outageRateValue}/s for ${settings.rateS} s`);
  const upRate = await outageFixedRate();
  sent.accepted += upRate.result.ok;

  return {
    closed: outageClosed,
    rate: outageRate,
    upRate,
    rateValue: outageRateValue,
    switchMs,
    healMs,
    drainS: outageDrain.seconds,
  };
}

/** Correctness over the whole of a subject's run: one reply per accepted message, none for a duplicate. */
async function settle(subject: Subject, sent: Sent) {
  await drain(subject, sent.accepted);
  const counts = subject.dep.slack.countsByThread();
  const sentSet = new Set(sent.threads);
  return {
    accepted: sent.accepted,
    answeredThreads: [...counts.keys()].filter((thread) => sentSet.has(thread)).length,
    doubled: [...counts.values()].filter((c) => c > 1).length,
    strangers: [...counts.keys()].filter((thread) => !sentSet.has(thread)).length,
  };
}

function killStep(subject: Subject) {
  step(`kill -9 mid-storm: ${settings.killMessages} messages as twins, one instance killed holding answers`);
  return killMidStorm(subject.dep, subject.ws, {
    messages: settings.killMessages,
    holdMs: settings.killHoldMs,
    timeoutMs: settings.drainTimeoutMs,
  });
}

/** Whether every instance says Redis is `up` (resident_shared_store_up, which follows its breaker). */
async function redisUpEverywhere(dep: Deployment, up: boolean): Promise<boolean> {
  const seen = await Promise.all(
    dep.instances.map(async (instance) => (await instance.metrics()).sum("resident_shared_store_up")),
  );
  return seen.every((value) => value === (up ? 1 : 0));
}

function windowOf(before: RedisSnapshot, after: RedisSnapshot) {
  const commands = commandDelta(before, after);
  return { ms: after.at - before.at, commands, total: totalCalls(commands) };
}

function postCount(dep: BenchDeployment): number {
  return dep.slack.callsTo("chat.postMessage").length;
}

/** Waits until the queue is empty and the replies have stopped growing: every accepted event answered. */
async function drain(subject: Subject, accepted: number): Promise<{ seconds: number; posts: number }> {
  const started = performance.now();
  let last = -1;
  let stableSince = performance.now();
  await until(
    async () => {
      const posts = postCount(subject.dep);
      if (posts !== last) {
        last = posts;
        stableSince = performance.now();
      }
      return posts >= accepted && (await subject.queueDepth()) === 0 && performance.now() - stableSince > 300;
    },
    settings.drainTimeoutMs,
    `${accepted} replies and an empty queue`,
  );
  return { seconds: (performance.now() - started) / 1000, posts: last };
}

/** Rewrites Redis' AOF and waits for it, and for any rewrite under way before it, to finish: a fresh base. */
async function rewriteAofNow(redis: RedisProbe): Promise<void> {
  const done = async () => !(await redis.rewritingAof());
  await until(done, settings.drainTimeoutMs, "Redis' AOF rewrite under way");
  await redis.client.bgrewriteaof();
  await until(done, settings.drainTimeoutMs, "Redis' AOF rewrite");
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (interrupted) throw new Error("interrupted");
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

// ─── Running it (last: the class and constants above must be initialised first) ──────────────────────────────

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  for (const subject of subjects) process.stderr.write(`${subject.dep.logs(30)}\n`);
  process.exitCode = 1;
} finally {
  await closeAll();
}
