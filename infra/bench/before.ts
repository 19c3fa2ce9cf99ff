import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { DeployedSlackWorkspace } from "@resident/testkit/deployment";
import type { BenchDeployment, Subject } from "./subject.ts";

const run = promisify(execFile);

/**
 * `BENCH_BEFORE=<commit>`: the service as it was at an earlier commit, for issue 10's "before" measured on the same
 * machine in the same run. The commit's tree is unpacked into the system's temporary directory (`git archive`, no
 * worktree to clean up) with its own dependencies, and kept there for the next run. Returns its directory.
 */
export async function checkoutBefore(
  commit: string,
  say: (line: string) => void,
): Promise<{ dir: string; sha: string }> {
  const sha = (await run("git", ["rev-parse", "--short", `${commit}^{commit}`])).stdout.trim();
  const dir = join(tmpdir(), `resident-bench-before-${sha}`);
  const ready = join(dir, ".bench-ready");
  if (existsSync(ready)) return { dir, sha };
  say(`checking out ${sha} into ${dir} and installing its dependencies (npm ci), once`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await run("sh", ["-c", `git archive ${sha} | tar -x -C '${dir}'`]);
  await run("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  await writeFile(ready, `${sha}\n`);
  return { dir, sha };
}

/** The part of BullMQ's Queue (the earlier commit's queue) the bench uses. */
interface BullQueue {
  pause(): Promise<void>;
  resume(): Promise<void>;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
  close(): Promise<void>;
}
type QueueClass = new (
  name: string,
  options: { prefix: string; connection: { host: string; port: number } },
) => BullQueue;

/** What the earlier commit's testkit (`@resident/testkit/deployment` of its tree) is called with here. */
type StartDeployment = (options: {
  instances: number;
  platforms: string[];
}) => Promise<BenchDeployment & { connectSlack(): Promise<DeployedSlackWorkspace> }>;

/**
 * The earlier commit's deployment, started by its own testkit (its instances from their sources under tsx, as the
 * tests and the bench of that day ran them: that testkit could not start the build), its workers held by pausing its
 * BullMQ queue as its own bench did.
 */
export async function startBefore(dir: string, instances: number): Promise<Subject> {
  const testkit = pathToFileURL(join(dir, "packages/testkit/src/deployment/index.ts")).href;
  const { startDeployment } = (await import(testkit)) as { startDeployment: StartDeployment };
  const bullmq = pathToFileURL(createRequire(join(dir, "package.json")).resolve("bullmq")).href;
  const { Queue } = (await import(bullmq)) as { Queue: QueueClass };
  const dep = await startDeployment({ instances, platforms: ["slack"] });
  try {
    const ws = await dep.connectSlack();
    const queue = new Queue("replies", { prefix: "{rsd}", connection: { host: "127.0.0.1", port: dep.redis.port } });
    return {
      dep,
      ws,
      // A paused BullMQ queue hands its workers nothing.
      workers: { pause: () => queue.pause(), resume: () => queue.resume(), held: () => 0 },
      queueDepth: async () => {
        const counts = await queue.getJobCounts("waiting", "active", "delayed", "prioritized", "paused");
        return Object.values(counts).reduce((sum, count) => sum + count, 0);
      },
      close: async () => {
        await queue.close().catch(() => {});
        await dep.close();
      },
    };
  } catch (error) {
    await dep.close();
    throw error;
  }
}
