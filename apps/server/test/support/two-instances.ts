import { randomBytes } from "node:crypto";
import { createDatabase, RedisServer } from "@resident/testkit/processes";
import { type InProcessService, startInProcessService } from "./in-process-service.ts";

export interface TwoInstances {
  one: InProcessService;
  /** Talks to `one`'s fake Slack and fake Anthropic, so every reply and LLM call is counted in one place. */
  two: InProcessService;
  close(): Promise<void>;
}

/** Two instances of one deployment: one PostgreSQL database, one Redis, one operator token and secret key. */
export async function startTwoInstances(): Promise<TwoInstances> {
  const [redis, database] = await Promise.all([RedisServer.start(), createDatabase()]);
  const env = {
    REDIS_URL: redis.url,
    DATABASE_URL: database.url,
    ADMIN_TOKEN: `operator-${randomBytes(16).toString("hex")}`,
    SECRET_KEY: randomBytes(32).toString("base64"),
  };
  const one = await startInProcessService(env);
  const two = await startInProcessService({ ...env, SLACK_API_URL: one.slack.apiUrl, ANTHROPIC_BASE_URL: one.llm.url });
  return {
    one,
    two,
    async close() {
      await Promise.all([one.close(), two.close()]);
      await Promise.all([redis.dispose(), database.drop()]);
    },
  };
}
