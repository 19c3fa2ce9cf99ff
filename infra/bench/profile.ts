import { mkdir, mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type DeployedSlackWorkspace, type Deployment, startDeployment } from "@resident/testkit/deployment";
import { appMention } from "@resident/testkit/slack";
import { processCpuMs } from "./cpu.ts";
import { closedLoop, type PreparedRequest, RequestFeed } from "./load.ts";
import { CommandMonitor, type CommandWindow, keyKind, roleOf, scriptKeys } from "./monitor.ts";
import { RedisProbe } from "./redis-probe.ts";
import { signedStorm, twinStorm } from "./storm.ts";

const warmup = Number(process.env.BENCH_PROFILE_WARMUP ?? 8_000);
const profiled = Number(process.env.BENCH_PROFILE_MESSAGES ?? 4_000);
const monitored = Number(process.env.BENCH_PROFILE_MONITORED ?? 500);
/** `BENCH_PROFILE_ACK=1`: the ack path alone — ROLE=web instances, no workers, nothing answered or monitored. */
const ackOnly = process.env.BENCH_PROFILE_ACK === "1";
const scope = ackOnly ? "acked (ROLE=web)" : "end to end (ROLE=all)";
const hook = fileURLToPath(new URL("./cpu-profile-hook.mjs", import.meta.url));
const say = (line = "") => process.stdout.write(`${line}\n`);

const dir = process.env.BENCH_PROFILE_DIR ?? (await mkdtemp(join(tmpdir(), "resident-profile-")));
await mkdir(dir, { recursive: true });
const dep = await startDeployment({
  instances: 3,
  platforms: ["slack"],
  env: { NODE_OPTIONS: `--import=${hook}`, CPU_PROFILE_DIR: dir, ...(ackOnly ? { ROLE: "web" } : {}), ...extraEnv() },
});
try {
  await run(dep);
} finally {
  await dep.close();
}

/** BENCH_PROFILE_ENV="A=1,B=2": settings to profile the servers under. */
function extraEnv(): Record<string, string> {
  const pairs = (process.env.BENCH_PROFILE_ENV ?? "").split(",").filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => pair.split("=", 2) as [string, string]));
}

async function run(dep: Deployment): Promise<void> {
  // Posted answers (one chat.postMessage each, counted as they land), not streamed: the figures the issue was filed
  // with were, and a stream takes more Slack calls an answer (start, append, stop).
  const ws = await dep.connectSlack({ streaming: false });
  const posts = () => dep.slack.callsTo("chat.postMessage").length;
  /**
   * Fires the requests and waits for `answers` replies (fewer if some deliveries were not accepted); with
   * BENCH_PROFILE_ACK nobody answers, so it returns once every request is acked.
   */
  const endToEnd = async (requests: PreparedRequest[], messages: number) => {
    const before = posts();
    const connections = Math.min(64, requests.length);
    const fired = await closedLoop(dep.url, new RequestFeed(requests), { connections, amount: requests.length });
    if (ackOnly) return;
    const answers = messages - (fired.sent - fired.ok);
    const deadline = performance.now() + 240_000;
    while (posts() - before < answers) {
      if (performance.now() > deadline) throw new Error(`only ${posts() - before} of ${answers} answered`);
      await sleep(50);
    }
  };
  process.stderr.write(`· warm-up: ${warmup} mentions ${scope}\n`);
  await endToEnd(mentions(ws, warmup), warmup);
  await sleep(2_000);

  process.stderr.write(`· profiling: ${profiled} mentions ${scope}\n`);
  const pids = dep.instances.map((instance) => instance.pid ?? 0);
  const cpuBefore = await Promise.all(pids.map(processCpuMs));
  for (const pid of pids) process.kill(pid, "SIGUSR2");
  const started = performance.now();
  await endToEnd(mentions(ws, profiled), profiled);
  const seconds = (performance.now() - started) / 1000;
  for (const pid of pids) process.kill(pid, "SIGUSR2");
  const cpuAfter = await Promise.all(pids.map(processCpuMs));
  const serverMs = cpuAfter.reduce((sum, ms, i) => sum + ms - (cpuBefore[i] ?? 0), 0);
  await sleep(1_500);
  say(`CPU profile: ${profiled} mentions ${scope} in ${seconds.toFixed(1)} s, 3 instances`);
  say(`servers' CPU (/proc): ${(serverMs / profiled).toFixed(2)} ms per message`);
  say(summarize(await readProfiles(dir), serverMs / profiled));
  if (!ackOnly) await monitorCommands(dep, ws, endToEnd);
  say(`\nprofiles in ${dir}`);
}

/** A batch of distinct mentions and a twin storm under MONITOR: every command charged to its source. */
async function monitorCommands(
  dep: Deployment,
  ws: DeployedSlackWorkspace,
  endToEnd: (requests: PreparedRequest[], messages: number) => Promise<void>,
): Promise<void> {
  const probe = new RedisProbe(dep.redis.url);
  try {
    for (const [what, requests, count] of [
      ["distinct mentions", mentions(ws, monitored), monitored],
      [
        "twin storm",
        signedStorm(
          ws,
          twinStorm(ws, monitored, (i) => `stormed question ${i}`),
        ),
        monitored,
      ],
    ] as const) {
      process.stderr.write(`· Redis under MONITOR: ${count} messages, ${what} (${requests.length} deliveries)\n`);
      const seen = await watch(probe, () => endToEnd(requests, count).then(() => sleep(2_500)));
      say();
      say(`Redis commands per message, ${what} (${requests.length / count} deliveries each), by source`);
      say(tallyCommands(seen, count));
    }
  } finally {
    probe.close();
  }
}

function mentions(ws: DeployedSlackWorkspace, count: number): PreparedRequest[] {
  return Array.from({ length: count }, (_, i) => signed(ws, appMention(ws.bot, `profiled question ${i}`)));
}

function signed(ws: DeployedSlackWorkspace, body: unknown): PreparedRequest {
  const request = ws.request(body);
  return { path: ws.webhookPath, headers: request.headers, body: request.rawBody };
}

// ─── CPU profiles ───────────────────────────────────────────────────────────────────────────────────────────────

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

async function readProfiles(dir: string): Promise<Profile[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith(".cpuprofile"));
  return Promise.all(files.map(async (file) => JSON.parse(await readFile(join(dir, file), "utf8")) as Profile));
}

/** The component a frame belongs to: a package of ours, a dependency, a node subsystem, or V8's own buckets. */
function component(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const ours = /\/(packages|apps)\/([^/]+)\/src\//.exec(url);
  if (ours && !url.includes("node_modules")) return `resident ${ours[2]}`;
  const dependency = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1] as string;
  const internal = /^node:(?:internal\/)?(?:deps\/)?([^/]+)/.exec(url);
  if (internal) return `node:${(internal[1] as string).replace(/_.*$/, "").replace(/\.js$/, "")}`;
  return url;
}

function chargeable(name: string): boolean {
  return name.startsWith("node:") || name === "(native)";
}

/**
 * The profiler samples wall time: a process the kernel has descheduled (three instances on two cores) still gets
 * samples. So the samples give shares, and the shares are scaled to the CPU /proc counted (`cpuMsPerMessage`).
 */
function summarize(profiles: Profile[], cpuMsPerMessage: number): string {
  const self = new Map<string, number>();
  const charged = new Map<string, number>();
  let totalUs = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    profile.samples.forEach((id, i) => {
      const node = byId.get(id);
      const us = profile.timeDeltas[i] ?? 0;
      if (!node || node.callFrame.functionName === "(idle)") return;
      totalUs += us;
      const own = component(node.callFrame.url, node.callFrame.functionName);
      self.set(own, (self.get(own) ?? 0) + us);
      // node's own code (http, streams, timers…) and V8's builtins are charged to the nearest package that called them.
      let payer = own;
      for (let up = parent.get(id); chargeable(payer) && up !== undefined; up = parent.get(up)) {
        const frame = byId.get(up)?.callFrame;
        if (frame?.url && !frame.url.startsWith("node:")) payer = component(frame.url, frame.functionName);
      }
      charged.set(payer, (charged.get(payer) ?? 0) + us);
    });
  }
  const rows = [...new Set([...self.keys(), ...charged.keys()])]
    .map((name) => ({ name, self: self.get(name) ?? 0, charged: charged.get(name) ?? 0 }))
    .filter((row) => row.self + row.charged > totalUs * 0.004);
  const ms = (us: number) => ((us / totalUs) * cpuMsPerMessage).toFixed(3);
  const share = (us: number) => `${((100 * us) / totalUs).toFixed(1)} %`;
  const lines = [
    `${"component".padEnd(34)}${"self ms/msg".padStart(12)}${"share".padStart(8)}${"with node's and V8's frames it called".padStart(40)}`,
  ];
  rows.sort((a, b) => b.charged - a.charged);
  for (const row of rows) {
    lines.push(
      `${row.name.padEnd(34)}${ms(row.self).padStart(12)}${share(row.self).padStart(8)}${`${ms(row.charged)}  ${share(row.charged)}`.padStart(40)}`,
    );
  }
  return lines.join("\n");
}

// ─── Redis commands by source ───────────────────────────────────────────────────────────────────────────────────

async function watch(probe: RedisProbe, during: () => Promise<unknown>): Promise<CommandWindow> {
  const monitor = await CommandMonitor.start(probe.client);
  await during();
  return monitor.close();
}

function tallyCommands({ seen, names }: CommandWindow, messages: number): string {
  const rows = new Map<string, { trips: number; commands: number }>();
  const open = new Map<string, string>();
  let current = "";
  let trips = 0;
  let commands = 0;
  const count = (key: string, trip: number) => {
    const row = rows.get(key) ?? { trips: 0, commands: 0 };
    row.trips += trip;
    row.commands += 1;
    rows.set(key, row);
    trips += trip;
    commands += 1;
  };
  for (const { source, args } of seen) {
    const command = String(args[0] ?? "").toLowerCase();
    if (source === "lua") {
      count(current, 0);
      continue;
    }
    const role = roleOf(names.get(source));
    if (role.endsWith("bench-probe")) continue;
    const block = open.get(source);
    if (command === "multi") {
      open.set(source, "");
      current = `${role} · MULTI`;
      count(current, 0);
    } else if (command === "exec" || command === "discard") {
      current = `${role} · MULTI ${block}`;
      count(current, 1);
      open.delete(source);
    } else if (block !== undefined) {
      if (!block) open.set(source, keyKind(String(args[1] ?? "")));
      count(`${role} · MULTI`, 0);
    } else if (command === "evalsha" || command === "eval") {
      current = `${role} · script on ${scriptKeys(args).kind}`;
      count(current, 1);
    } else {
      current = `${role} · ${command}`;
      count(current, 1);
    }
  }
  // A MULTI's inner commands are counted as they arrive, before its EXEC names the block: they stay a row of their own.
  const per = (n: number) => (n / messages).toFixed(2);
  const lines = [
    `${"source (connection · command or script)".padEnd(52)}${"round trips".padStart(12)}${"commands".padStart(10)}`,
  ];
  for (const [key, row] of [...rows.entries()].sort((a, b) => b[1].commands - a[1].commands)) {
    if (row.commands / messages < 0.01) continue;
    lines.push(`${key.padEnd(52)}${per(row.trips).padStart(12)}${per(row.commands).padStart(10)}`);
  }
  lines.push(`${"all".padEnd(52)}${per(trips).padStart(12)}${per(commands).padStart(10)}`);
  return lines.join("\n");
}
