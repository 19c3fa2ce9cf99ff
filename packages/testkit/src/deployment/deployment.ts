import { randomBytes } from "node:crypto";
import { AdminApi } from "@resident/admin-api";
import { type AnthropicCall, FakeAnthropic, type FakeAnthropicOptions } from "../anthropic/index.ts";
import { FakeChatwork, type FakeChatworkOptions } from "../chatwork/index.ts";
import { freePort } from "../processes/free-port.ts";
import type { InstanceEntry } from "../processes/instance.ts";
import { type RunningNginx, startNginx } from "../processes/nginx.ts";
import { createDatabase, type TestDatabase } from "../processes/postgres.ts";
import { RedisServer } from "../processes/redis.ts";
import { FakeSlack } from "../slack/index.ts";
import { FakeBotFramework } from "../teams/index.ts";
import { DeployedInstance } from "./instance.ts";
import { track, untrack } from "./leftovers.ts";
import {
  type ChatworkDirectory,
  connectChatwork,
  connectSlack,
  connectTeams,
  type DeployedChatworkWorkspace,
  type DeployedSlackWorkspace,
  type DeployedTeamsWorkspace,
} from "./workspaces.ts";

export type FakePlatform = "slack" | "teams" | "chatwork";

export interface DeploymentOptions {
  /** Resident processes behind nginx. Default 3. */
  instances?: number;
  /** The fake platform APIs to run (the fake Anthropic always runs). Default all three. */
  platforms?: FakePlatform[];
  /** Added to every instance's environment (e.g. CLAIM_LEASE_SECONDS, JOB_LOCK_SECONDS, WORKER_CONCURRENCY). */
  env?: Record<string, string>;
  /**
   * What the instances run: their TypeScript sources under tsx (default, as the tests and `npm run dev` do), or the
   * build, as `npm start` and the Docker image run it (the caller builds it first).
   */
  entry?: InstanceEntry;
  /** Added to one instance's environment, after `env`. */
  instanceEnv?: (index: number, name: string) => Record<string, string>;
  /** Default "warn": what the captured logs hold. */
  logLevel?: string;
  /**
   * redis-server arguments. Default as infra/redis.conf: AOF on (everysec), noeviction — so a Redis that is stopped
   * or killed comes back with its data, as a production Redis does.
   */
  redisArgs?: string[];
  /** A Redis of the test's own, which it starts and stops (the deployment leaves it running); `redisArgs` go unused. */
  redis?: RedisServer;
  anthropic?: FakeAnthropicOptions;
  /** Limits of the fake Chatwork (default Chatwork's published ones). */
  chatwork?: Pick<FakeChatworkOptions, "perToken" | "postsPerRoom">;
  /** Put nginx in front (default true); without it `url` is the first instance's. */
  nginx?: boolean;
  /** Which instances nginx routes to (default all): e.g. only the ROLE=web ones, as a Kubernetes Service would. */
  behindNginx?: (index: number, name: string) => boolean;
  /** A database of the test's own (a private server it stops and starts); default a fresh one on the machine's. */
  databaseUrl?: string;
}

export interface Deployment {
  /** The front door: nginx (or the first instance without nginx). */
  url: string;
  /** The operator, through the front door. */
  operator: AdminApi;
  adminToken: string;
  instances: DeployedInstance[];
  redis: RedisServer;
  database: TestDatabase;
  nginx?: RunningNginx;
  llm: FakeAnthropic;
  slack: FakeSlack;
  teams: FakeBotFramework;
  chatwork: FakeChatwork;
  /** The environment every instance shares (what `instanceEnv` adds is on each instance's `env`). */
  env: Record<string, string>;

  connectSlack(settings?: Record<string, unknown>): Promise<DeployedSlackWorkspace>;
  connectTeams(settings?: Record<string, unknown>): Promise<DeployedTeamsWorkspace>;
  connectChatwork(options?: { rooms?: number; settings?: Record<string, unknown> }): Promise<DeployedChatworkWorkspace>;

  /** The instance whose LLM calls these are (told apart by the API key each instance presents). */
  instanceOf(call: AnthropicCall): DeployedInstance | undefined;
  /** `status(path)` of every instance directly, in order (0 where nothing answers). */
  statuses(path: string): Promise<number[]>;
  /** Every instance's captured output (the last `lines` lines of each run), for a failing test's report. */
  logs(lines?: number): string;
  /** Stops everything by pid (nginx, instances, Redis), drops the database, closes the fakes; safe to call twice. */
  close(): Promise<void>;
}

/** The arguments of a deployment's own redis-server: infra/redis.conf's AOF and eviction policy. */
export const deploymentRedisArgs = [
  "--appendonly",
  "yes",
  "--appendfsync",
  "everysec",
  "--maxmemory-policy",
  "noeviction",
];

/**
 * A deployment as operators run one, on loopback: its own redis-server and PostgreSQL database, N resident processes
 * sharing them, nginx in front, and fake Slack / Teams / Chatwork / Anthropic APIs in this process. Whatever fails on
 * the way up, what was started is stopped again before the error is thrown.
 */
export async function startDeployment(options: DeploymentOptions = {}): Promise<Deployment> {
  const count = options.instances ?? 3;
  const platforms = new Set(options.platforms ?? ["slack", "teams", "chatwork"]);
  const closers: (() => Promise<unknown>)[] = [];
  const instances: DeployedInstance[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  };
  try {
    const chatworkDirectory: ChatworkDirectory = { accounts: [], rooms: [] };
    // Each part is registered for closing as soon as it is up, so a failure of another leaves nothing behind.
    const up = async <T>(starting: Promise<T>, close: (part: T) => Promise<unknown>): Promise<T> => {
      const part = await starting;
      closers.push(() => close(part));
      return part;
    };
    const maybe = <T>(wanted: boolean, start: () => Promise<T>, close: (part: T) => Promise<unknown>) =>
      wanted ? up(start(), close) : Promise.resolve(undefined);
    const starting = [
      up(new FakeAnthropic(options.anthropic).start(), (fake) => fake.close()),
      maybe(
        platforms.has("slack"),
        () => new FakeSlack().start(),
        (fake) => fake.close(),
      ),
      maybe(
        platforms.has("teams"),
        () => FakeBotFramework.start(),
        (fake) => fake.close(),
      ),
      maybe(
        platforms.has("chatwork"),
        () => new FakeChatwork({ ...chatworkDirectory, ...options.chatwork }).start(),
        (fake) => fake.close(),
      ),
      options.redis
        ? Promise.resolve(options.redis)
        : up(RedisServer.start({ args: options.redisArgs ?? deploymentRedisArgs }), (server) => server.dispose()),
      up(
        options.databaseUrl
          ? Promise.resolve<TestDatabase>({ url: options.databaseUrl, drop: async () => {} })
          : createDatabase(),
        (db) => db.drop(),
      ),
    ] as const;
    // Everything settles before a failure is thrown, so whatever did start is registered and closed.
    await Promise.allSettled(starting);
    const [llm, slack, teams, chatwork, redis, database] = await Promise.all(starting);

    const adminToken = `operator-${randomBytes(16).toString("hex")}`;
    const keyPrefix = `sk-ant-test-${randomBytes(6).toString("hex")}`;
    const env: Record<string, string> = {
      REDIS_URL: redis.url,
      DATABASE_URL: database.url,
      SECRET_KEY: randomBytes(32).toString("base64"),
      ADMIN_TOKEN: adminToken,
      // nginx on loopback, as docker-compose.yml trusts its nginx.
      TRUSTED_PROXIES: "127.0.0.1",
      ANTHROPIC_BASE_URL: llm.url,
      LOG_LEVEL: options.logLevel ?? "warn",
      // The fake Slack's app, whose id and secret refresh rotating bot tokens.
      ...(slack
        ? {
            SLACK_API_URL: slack.apiUrl,
            SLACK_CLIENT_ID: slack.rotation.app.clientId,
            SLACK_CLIENT_SECRET: slack.rotation.app.clientSecret,
          }
        : {}),
      ...(chatwork ? { CHATWORK_API_URL: chatwork.apiUrl } : {}),
      ...(teams
        ? {
            TEAMS_OPENID_METADATA_URL: teams.openIdMetadataUrl,
            TEAMS_TOKEN_ISSUER: teams.issuer,
            TEAMS_LOGIN_URL: teams.loginUrl,
          }
        : {}),
      ...options.env,
    };
    for (let i = 0; i < count; i++) {
      const name = `resident-${i + 1}`;
      const instanceEnv = {
        ...env,
        // Each instance presents its own key, so every LLM call names the instance that made it.
        ANTHROPIC_API_KEY: `${keyPrefix}-${name}`,
        ...options.instanceEnv?.(i, name),
      };
      instances.push(new DeployedInstance(name, await freePort(), instanceEnv, options.entry));
    }
    closers.push(() => Promise.all(instances.map((instance) => instance.stop(5_000))));
    // All at once: the database migrations are safe to run concurrently (packages/tenants).
    const starts = instances.map((instance) => instance.start());
    await Promise.allSettled(starts);
    await Promise.all(starts);

    let nginx: RunningNginx | undefined;
    if (options.nginx ?? true) {
      const routed = instances.filter((instance, i) => options.behindNginx?.(i, instance.name) ?? true);
      nginx = await startNginx(routed.map((instance) => instance.port));
      track(nginx.process);
      const proxy = nginx;
      closers.push(async () => {
        await proxy.process.stop("SIGQUIT", 3_000).catch(() => {});
        untrack(proxy.process);
      });
    }
    const url = nginx?.url ?? (instances[0] as DeployedInstance).url;
    const operator = new AdminApi(adminToken, url);
    const need = <T>(fake: T | undefined, platform: FakePlatform): T => {
      if (!fake) throw new Error(`this deployment runs no fake ${platform} (options.platforms)`);
      return fake;
    };
    const keyOwners = new Map(instances.map((instance) => [instance.anthropicKey, instance]));
    let closing: Promise<void> | undefined;

    return {
      url,
      operator,
      adminToken,
      instances,
      redis,
      database,
      nginx,
      llm,
      get slack() {
        return need(slack, "slack");
      },
      get teams() {
        return need(teams, "teams");
      },
      get chatwork() {
        return need(chatwork, "chatwork");
      },
      env,
      connectSlack: (settings) => connectSlack(url, operator, need(slack, "slack"), settings),
      connectTeams: (settings) => connectTeams(url, operator, need(teams, "teams"), settings),
      connectChatwork: (o) => {
        need(chatwork, "chatwork");
        return connectChatwork(url, operator, chatworkDirectory, o);
      },
      instanceOf: (call) => keyOwners.get(call.apiKey),
      statuses: (path) => Promise.all(instances.map((instance) => instance.status(path))),
      logs: (lines) => instances.map((instance) => instance.log(lines)).join("\n"),
      close: () => (closing ??= closeAll()),
    };
  } catch (error) {
    const logs = instances.map((instance) => instance.log(100)).join("\n");
    await closeAll();
    if (logs && error instanceof Error) error.message += `\n${logs}`;
    throw error;
  }
}
