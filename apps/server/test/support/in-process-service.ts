import { randomBytes } from "node:crypto";
import { AdminApi } from "@resident/admin-api";
import type { PlatformDescriptor } from "@resident/core";
import { FakeAnthropic } from "@resident/testkit/anthropic";
import { createDatabase, startOnFreePort } from "@resident/testkit/processes";
import { FakeSlack } from "@resident/testkit/slack";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { platforms } from "../../src/platforms.ts";
import { type Service, startService } from "../../src/service.ts";

export interface InProcessService {
  url: string;
  service: Service;
  slack: FakeSlack;
  llm: FakeAnthropic;
  /** Every log line the instance wrote, at debug level. */
  logs: string[];
  /** Secrets configured for this run, none of which may ever appear in a log line or an API response. */
  secrets: string[];
  operator: AdminApi;
  close(): Promise<void>;
}

/**
 * One resident instance in this process, on a fresh PostgreSQL database, talking to a fake Slack and a fake
 * Anthropic on loopback, with its log captured. Everything else is the real service. Several instances share one
 * deployment when given the same DATABASE_URL, ADMIN_TOKEN, SECRET_KEY (and REDIS_URL) in `env`. `prepare` sets the
 * fake Slack up before the instance starts and answers what it adds to the environment (a distributed app's ids).
 */
export async function startInProcessService(
  env: Record<string, string> = {},
  descriptors: readonly PlatformDescriptor[] = platforms,
  prepare: (slack: FakeSlack) => Record<string, string> = () => ({}),
): Promise<InProcessService> {
  const [slack, llm, database] = await Promise.all([
    new FakeSlack().start(),
    new FakeAnthropic().start(),
    env.DATABASE_URL ? undefined : createDatabase(),
  ]);
  const adminToken = env.ADMIN_TOKEN ?? `operator-${randomBytes(16).toString("hex")}`;
  const secretKey = env.SECRET_KEY ?? randomBytes(32).toString("base64");
  const apiKey = `sk-ant-test-${randomBytes(12).toString("hex")}`;
  const config = loadConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    PUBLIC_URL: "https://resident.example",
    DATABASE_URL: database?.url ?? "",
    ADMIN_TOKEN: adminToken,
    SECRET_KEY: secretKey,
    ANTHROPIC_API_KEY: apiKey,
    ANTHROPIC_BASE_URL: llm.url,
    SLACK_API_URL: slack.apiUrl,
    SLACK_OAUTH_URL: slack.oauthUrl,
    LOG_LEVEL: "debug",
    INSTANCE_ID: "test-instance",
    ...prepare(slack),
    ...env,
  });
  const logs: string[] = [];
  const logger = createLogger(
    config.logLevel,
    config.instanceId,
    { write: (line: string) => logs.push(line) },
    descriptors,
  );
  const service = await startService(config, logger, descriptors).catch(async (error: unknown) => {
    await Promise.all([slack.close(), llm.close()]);
    await database?.drop();
    throw error;
  });
  return {
    url: service.url,
    service,
    slack,
    llm,
    logs,
    secrets: [adminToken, secretKey, apiKey],
    operator: new AdminApi(adminToken, service.url),
    async close() {
      await service.close();
      await Promise.all([slack.close(), llm.close()]);
      await database?.drop();
    },
  };
}

/**
 * startInProcessService on a port of its own that is also its PUBLIC_URL, as a browser or a platform's redirect
 * reaches it. The port is probed free and bound a moment later, so another process can take it in between; a bind
 * that finds it taken tries another port.
 */
export async function startAtOwnAddress(
  env: Record<string, string> = {},
  descriptors?: readonly PlatformDescriptor[],
  prepare?: (slack: FakeSlack) => Record<string, string>,
): Promise<InProcessService> {
  return startOnFreePort(
    (port) =>
      startInProcessService(
        { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env },
        descriptors,
        prepare,
      ),
    (error) => (error as NodeJS.ErrnoException).code === "EADDRINUSE",
  );
}
