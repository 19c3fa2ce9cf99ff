/**
 * `npm run bench:pair`: this checkout's ack path against another checkout's (`BENCH_PAIR_BASE`, a git worktree with
 * its own `npm ci`), both at once. Two ROLE=web instances share one Redis and one database, one started from each
 * checkout, and two open-loop pacers send each the same rate of distinct signed Slack mentions; it prints each
 * instance's CPU per ack by /proc, round by round, and their ratio. On a shared 2-core VM whose speed drifts by a
 * third within minutes, runs one after the other cannot tell a 5 % change from noise; two instances loaded side by
 * side drift together (an unchanged pair reads 0.95–1.08: the seats differ, so a small change is read from both
 * seats, each checkout in each). Redis is shared, so its own cost is not compared.
 * BENCH_PAIR_E2E=1 compares a message end to end instead: both instances ROLE=all, each on a Redis database of its own
 * (so that each answers the mentions it acked), at 250/s each unless told; the run ends once every mention is answered.
 * Knobs: BENCH_PAIR_RATE (2,000/s each), BENCH_PAIR_SECONDS (8 a round), BENCH_PAIR_ROUNDS (8, after 2 of warm-up);
 * BENCH_PAIR_ENTRY and BENCH_PAIR_BASE_ENTRY (`build`: that side runs its build, which must be built, instead of its
 * sources under tsx).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { startDeployment } from "@resident/testkit/deployment";
import { entryArguments, freePort, type InstanceEntry, ManagedProcess } from "@resident/testkit/processes";
import { untilAnswering } from "./baseline.ts";
import { processCpuMs } from "./cpu.ts";
import { Pacer, type PreparedRequest, RequestFeed } from "./load.ts";
import { mention } from "./mention.ts";
import { median } from "./rounds.ts";
import { webInstanceEnv } from "./web-instance.ts";

const base = process.env.BENCH_PAIR_BASE;
if (!base) throw new Error("BENCH_PAIR_BASE: the other checkout's directory (a worktree with node_modules)");
const endToEnd = process.env.BENCH_PAIR_E2E === "1";
const rate = Number(process.env.BENCH_PAIR_RATE ?? (endToEnd ? 250 : 2_000));
const role = endToEnd ? "all" : "web";
const unit = endToEnd ? "a message" : "an ack";
const seconds = Number(process.env.BENCH_PAIR_SECONDS ?? 8);
const rounds = Number(process.env.BENCH_PAIR_ROUNDS ?? 8);
const warmupRounds = 2;

const entryOf = (setting: string | undefined): InstanceEntry => (setting === "build" ? "build" : "source");
const entry = entryOf(process.env.BENCH_PAIR_ENTRY);
const dep = await startDeployment({ instances: 1, platforms: ["slack"], nginx: false, env: { ROLE: role }, entry });
const port = await freePort();
const other = ManagedProcess.spawn(
  "base",
  process.execPath,
  [...entryArguments[entryOf(process.env.BENCH_PAIR_BASE_ENTRY)]],
  {
    cwd: base,
    env: {
      ...webInstanceEnv(dep.env, "base"),
      ...(endToEnd ? { ROLE: role, REDIS_URL: `${dep.redis.url}/1` } : {}),
      HOST: "127.0.0.1",
      PORT: String(port),
    },
  },
);
// However this process ends, the other checkout's instance goes with it (the deployment's own are tracked already).
process.once("exit", () => other.running && process.kill(other.pid, "SIGKILL"));
const pacers = await Promise.all([Pacer.start(), Pacer.start()]);
try {
  const otherUrl = `http://127.0.0.1:${port}`;
  await untilAnswering(other, port);
  const ws = await dep.connectSlack({ streaming: false });
  let sent = 0;
  const mentions = (count: number): PreparedRequest[] => Array.from({ length: count }, () => mention(ws, sent++));
  const pids = [dep.instances[0]?.pid ?? 0, other.pid];
  const options = { rate, durationS: seconds, sockets: 32 };
  const ratios: number[] = [];
  process.stdout.write(`this checkout against ${base}: ${rate}/s each, ${seconds} s a round\n`);
  for (let round = -warmupRounds; round < rounds; round++) {
    const before = await Promise.all(pids.map(processCpuMs));
    const results = await Promise.all(
      [dep.url, otherUrl].map((url, i) => pacers[i]?.run(url, new RequestFeed(mentions(rate * seconds)), options)),
    );
    const after = await Promise.all(pids.map(processCpuMs));
    if (round < 0) continue;
    const [mine = 0, theirs = 0] = after.map((ms, i) => ((ms - (before[i] ?? 0)) * 1000) / (rate * seconds));
    const failed = results.map((result) => result?.failed ?? 0).join(" · ");
    ratios.push(mine / theirs);
    process.stdout.write(
      `round ${round + 1}: this ${mine.toFixed(1)} µs ${unit}, base ${theirs.toFixed(1)} µs, ratio ${(mine / theirs).toFixed(3)} (failed ${failed})\n`,
    );
  }
  const posts = () => dep.slack.callsTo("chat.postMessage").length;
  for (let waited = 0; endToEnd && posts() < sent && waited < 60_000; waited += 100) await sleep(100);
  if (endToEnd) process.stdout.write(`answered ${posts()} of ${sent} mentions\n`);
  const sorted = [...ratios].sort((a, b) => a - b);
  process.stdout.write(`median ratio ${median(ratios).toFixed(3)} (${sorted.map((r) => r.toFixed(3)).join(" ")})\n`);
} finally {
  for (const pacer of pacers) pacer.close();
  await other.stop("SIGTERM", 3_000);
  await dep.close();
}
