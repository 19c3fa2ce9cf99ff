/*
 * A worker process that takes jobs and never finishes them, so a test can SIGKILL or SIGSTOP it mid-job.
 * Usage: node --conditions=source --import tsx stalling-consumer.ts <redis url> <queue name>. Prints "started <job id>" per job.
 */
import { connectRedis, RedisQueue } from "../../src/index.ts";

const [url = "", name = ""] = process.argv.slice(2);
const queue = new RedisQueue({
  producer: connectRedis(url, "producer"),
  worker: connectRedis(url, "worker"),
  name,
  lockDurationMs: 1000,
  stalledIntervalMs: 300,
});
queue.consume(async (job) => {
  process.stdout.write(`started ${job.id}\n`);
  await new Promise(() => {});
});
