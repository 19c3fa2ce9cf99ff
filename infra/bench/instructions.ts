/**
 * `npm run bench:instructions`: the instructions a request of the bare route, the floor and the ack path, counted by
 * valgrind's callgrind — one process of each, ROLE=web for the service, on one testkit deployment's Redis and database.
 * A shared VM's speed drifts by a third within minutes and hides a few per cent of CPU; an instruction count does not
 * drift with it, and two profiles of one run, diffed function by function, show what a small change to the ack removed
 * when `bench:pair` cannot see it. Instructions are not time: what they cost in cache misses and stalls is not counted.
 * Each process runs under callgrind with its instrumentation off through the warm-up, so that counting starts on code
 * V8 has optimised, and on only for the counted requests. What V8 still compiles and collects in the window is counted
 * too, and lands there by luck: a major collection or a burst of TurboFan's compiles moved a process's whole count by
 * up to half from run to run on one machine, and code still in V8's lower tiers its count without them by up to a fifth
 * (infra/bench/JOURNAL.md, "A twenty-third machine"). So each count is printed whole and without V8's compiler and
 * collector (their functions, by name from `callgrind_annotate`). The profiles stay in BENCH_INSTR_DIR for
 * `callgrind_annotate`; with BENCH_INSTR_NODE_FLAGS="--perf-basic-prof" node writes /tmp/perf-<pid>.map, which names
 * the JIT's code that callgrind can only give addresses for. Knobs: BENCH_INSTR_WARMUP (15,000 requests),
 * BENCH_INSTR_MESSAGES (4,000), BENCH_INSTR_CONNECTIONS (16); BENCH_INSTR_BASE, another checkout (a worktree with its
 * own node_modules and build), whose service is counted too, in the same run, as `base` — a change's cost read beside
 * its parent's under the same load. Needs valgrind (`callgrind_control` too) and runs the build it makes first.
 */
import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startDeployment } from "@resident/testkit/deployment";
import { entryArguments, freePort, ManagedProcess } from "@resident/testkit/processes";
import { untilAnswering } from "./baseline.ts";
import { closedLoop, RequestFeed } from "./load.ts";
import { mention } from "./mention.ts";
import { webInstanceEnv } from "./web-instance.ts";

const warmup = Number(process.env.BENCH_INSTR_WARMUP ?? 15_000);
const counted = Number(process.env.BENCH_INSTR_MESSAGES ?? 4_000);
const connections = Number(process.env.BENCH_INSTR_CONNECTIONS ?? 16);
const nodeFlags = (process.env.BENCH_INSTR_NODE_FLAGS ?? "").split(" ").filter(Boolean);
const base = process.env.BENCH_INSTR_BASE;
const dir = process.env.BENCH_INSTR_DIR ?? (await mkdtemp(join(tmpdir(), "resident-instructions-")));
const run = promisify(execFile);
/** `callgrind_annotate`'s lines are `  1,234,567 ( 0.12%)  file:function`, the program's total among them. */
const annotated = (text: string) =>
  [...text.matchAll(/^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/gm)].map(([, count = "0", where = ""]) => ({
    count: Number(count.replaceAll(",", "")),
    where,
  }));
/** V8's optimising compiler (its namespace) and its garbage collector (the heap's marking, sweeping and scavenges). */
const v8Work = /v8::internal::compiler::|Marking|Sweeper|Scaveng|MarkCompact|Evacuat|heap::base::|Heap::/;
/** A profile's whole count, and its count without V8's compiler and collector. */
function totals(text: string): { all: number; lean: number } {
  let all = 0;
  let v8 = 0;
  for (const { count, where } of annotated(text)) {
    if (where.startsWith("PROGRAM TOTALS")) all = count;
    else if (v8Work.test(where)) v8 += count;
  }
  return { all, lean: all - v8 };
}

await run("npm", ["run", "build", "--silent"]);
const dep = await startDeployment({ instances: 1, platforms: ["slack"], nginx: false, env: { ROLE: "web" } });
const ws = await dep.connectSlack({ streaming: false });
let sent = 0;
const mentions = (count: number): RequestFeed =>
  new RequestFeed(Array.from({ length: count }, () => mention(ws, sent++)));
const home = { PATH: process.env.PATH, HOME: process.env.HOME };
const subjects: { name: string; args: string[]; env: Record<string, string | undefined>; cwd?: string }[] = [
  { name: "bare", args: ["infra/bench/baseline-server.mjs"], env: home },
  {
    name: "floor",
    args: ["infra/bench/floor-server.mjs"],
    env: { ...home, REDIS_URL: dep.redis.url, SIGNING_SECRET: ws.signingSecret },
  },
  { name: "ack", args: [...entryArguments.build], env: webInstanceEnv(dep.env, "ack") },
  ...(base ? [{ name: "base", args: [...entryArguments.build], env: webInstanceEnv(dep.env, "base"), cwd: base }] : []),
];
const started = await Promise.all(
  subjects.map(async ({ name, args, env, cwd }) => {
    const port = await freePort();
    const callgrind = ["--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${join(dir, `${name}.out`)}`];
    const child = ManagedProcess.spawn(name, "valgrind", [...callgrind, process.execPath, ...nodeFlags, ...args], {
      cwd: cwd ?? process.cwd(),
      env: { ...env, PORT: String(port) },
    });
    return { name, child, port, url: `http://127.0.0.1:${port}` };
  }),
);
process.once("exit", () => {
  for (const { child } of started) if (child.running) process.kill(child.pid, "SIGKILL");
});
try {
  await Promise.all(started.map(({ child, port }) => untilAnswering(child, port, 300_000)));
  const load = (count: number) =>
    Promise.all(started.map(({ url }) => closedLoop(url, mentions(count), { connections, amount: count })));
  const instrument = (on: "on" | "off") =>
    Promise.all(started.map(({ child }) => run("callgrind_control", ["-i", on, String(child.pid)])));
  process.stdout.write(`warming up: ${warmup} requests each, ${connections} connections\n`);
  await load(warmup);
  await instrument("on");
  const results = await load(counted);
  await instrument("off");
  await Promise.all(started.map(({ child }) => run("callgrind_control", ["-d", String(child.pid)])));
  const counts = await Promise.all(
    started.map(async ({ name }, i) => {
      const ok = results[i]?.ok ?? 0;
      if (ok !== counted) throw new Error(`${name}: ${ok} of ${counted} requests answered 2xx`);
      // The dump written on request is the file's first part (`<name>.out.1`).
      const { stdout } = await run("callgrind_annotate", ["--threshold=100", join(dir, `${name}.out.1`)], {
        maxBuffer: 256 * 1024 * 1024,
      });
      const { all, lean } = totals(stdout);
      return { name, all: all / counted, lean: lean / counted };
    }),
  );
  const of = (name: string) => counts.find((count) => count.name === name) ?? { all: Number.NaN, lean: Number.NaN };
  const row = (label: string, all: string, lean: string) =>
    `  ${label.padEnd(12)}${all.padStart(14)}${lean.padStart(22)}\n`;
  const ratio = (a: string, b: string) =>
    row(`${a} / ${b}`, (of(a).all / of(b).all).toFixed(3), (of(a).lean / of(b).lean).toFixed(3));
  process.stdout.write(`instructions a request, ${counted} counted after ${warmup} of warm-up (profiles in ${dir}):\n`);
  process.stdout.write(row("", "all", "without compiling, GC"));
  for (const { name, all, lean } of counts) process.stdout.write(row(name, all.toFixed(0), lean.toFixed(0)));
  process.stdout.write(ratio("ack", "floor"));
  if (base) process.stdout.write(ratio("ack", "base"));
} finally {
  await Promise.all(started.map(({ child }) => child.stop("SIGTERM", 5_000)));
  await dep.close();
}
