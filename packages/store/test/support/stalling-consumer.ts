/*
 * A worker process that takes jobs and never finishes them, so a test can SIGKILL it mid-job.
 * Usage: node --conditions=source --import tsx stalling-consumer.ts <redis url> <queue name>. Prints "started <job id>" per job.
 */
import { BullQueue, connectRedis } from "../../src/index.ts";

const [url = "", name = ""] = process.argv.slice(2);
const queue = new BullQueue({
  producer: connectRedis(url, "producer"),
  worker: connectRedis(url, "worker"),
  name,
  lockDurationMs: 1000,
  // Stalled checks run at most once per interval across all workers of a queue: keep the test's pace.
  stalledIntervalMs: 300,
});
queue.consume(async (job) => {
  process.stdout.write(`started ${job.id}\n`);
  await new Promise(() => {});
});
