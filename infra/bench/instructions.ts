/**
 * `npm run bench:instructions`: the instructions a request of the bare route, the floor and the ack path, counted by
 * valgrind's callgrind — one process of each, ROLE=web for the service, on one testkit deployment's Redis and database.
 * A shared VM's speed drifts by a third within minutes and hides a few per cent of CPU; an instruction count moves only
 * with where V8's compiles land (the floor's and the ack's within 3 % over four runs), so a small change to the ack
 * shows here when `bench:pair` cannot see it (infra/bench/README.md, "A twenty-second machine"). Instructions are not
 * time: what they cost in cache misses and stalls is not counted. Each process runs under callgrind with its
 * instrumentation off through the warm-up, so that counting starts on code V8 has optimised (what it still compiles is
 * counted too), and on only for the counted requests. The profiles stay in BENCH_INSTR_DIR for `callgrind_annotate`;
 * with BENCH_INSTR_NODE_FLAGS="--perf-basic-prof" node writes /tmp/perf-<pid>.map, which names the JIT's code that
 * callgrind can only give addresses for. Knobs: BENCH_INSTR_WARMUP (15,000 requests), BENCH_INSTR_MESSAGES (4,000),
 * BENCH_INSTR_CONNECTIONS (16). Needs valgrind (`callgrind_control` too) and runs the build it makes first.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startDeployment } from "@resident/testkit/deployment";
import { entryArguments, freePort, ManagedProcess } from "@resident/testkit/processes";
import { untilAnswering } from "./baseline.ts";
import { closedLoop, RequestFeed } from "./load.ts";
import { mention } from "./mention.ts";

const warmup = Number(process.env.BENCH_INSTR_WARMUP ?? 15_000);
const counted = Number(process.env.BENCH_INSTR_MESSAGES ?? 4_000);
const connections = Number(process.env.BENCH_INSTR_CONNECTIONS ?? 16);
const nodeFlags = (process.env.BENCH_INSTR_NODE_FLAGS ?? "").split(" ").filter(Boolean);
const dir = process.env.BENCH_INSTR_DIR ?? (await mkdtemp(join(tmpdir(), "resident-instructions-")));
const run = promisify(execFile);

await run("npm", ["run", "build", "--silent"]);
const dep = await startDeployment({ instances: 1, platforms: ["slack"], nginx: false, env: { ROLE: "web" } });
const ws = await dep.connectSlack({ streaming: false });
let sent = 0;
const mentions = (count: number): RequestFeed =>
  new RequestFeed(Array.from({ length: count }, () => mention(ws, sent++)));
const home = { PATH: process.env.PATH, HOME: process.env.HOME };
const subjects = [
  { name: "bare", args: ["infra/bench/baseline-server.mjs"], env: home },
  {
    name: "floor",
    args: ["infra/bench/floor-server.mjs"],
    env: { ...home, REDIS_URL: dep.redis.url, SIGNING_SECRET: ws.signingSecret },
  },
  {
    name: "ack",
    args: [...entryArguments.build],
    env: { ...home, ...dep.env, ROLE: "web", INSTANCE_ID: "counted", ANTHROPIC_API_KEY: "sk-ant-test-counted" },
  },
];
const started = await Promise.all(
  subjects.map(async ({ name, args, env }) => {
    const port = await freePort();
    const callgrind = ["--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${join(dir, `${name}.out`)}`];
    const child = ManagedProcess.spawn(name, "valgrind", [...callgrind, process.execPath, ...nodeFlags, ...args], {
      cwd: process.cwd(),
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
  const perRequest = await Promise.all(
    started.map(async ({ name }, i) => {
      const ok = results[i]?.ok ?? 0;
      if (ok !== counted) throw new Error(`${name}: ${ok} of ${counted} requests answered 2xx`);
      // The dump written on request is the file's first part (`<name>.out.1`); the `totals:` line counts it all.
      const profile = await readFile(join(dir, `${name}.out.1`), "utf8");
      return Number(/^totals: (\d+)/m.exec(profile)?.[1] ?? Number.NaN) / counted;
    }),
  );
  const [bare = 0, floor = 0, ack = 0] = perRequest;
  process.stdout.write(`instructions a request, ${counted} counted after ${warmup} of warm-up (profiles in ${dir}):\n`);
  process.stdout.write(`  bare route ${bare.toFixed(0)} · floor ${floor.toFixed(0)} · ack ${ack.toFixed(0)}\n`);
  process.stdout.write(`  ack / floor ${(ack / floor).toFixed(3)} · floor / bare ${(floor / bare).toFixed(3)}\n`);
} finally {
  await Promise.all(started.map(({ child }) => child.stop("SIGTERM", 5_000)));
  await dep.close();
}
