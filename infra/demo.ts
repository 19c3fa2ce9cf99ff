/**
 * `npm run demo`: a fake Slack and a fake Anthropic on loopback, one resident instance on embedded defaults, and a few
 * deliveries — a mention, Slack's retry of it, its `message` twin, a message from another bot — then what happened.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AdminApi } from "@resident/admin-api";
import { settle } from "@resident/testkit";
import { FakeAnthropic } from "@resident/testkit/anthropic";
import { appMention, botMessage, connectSlackWorkspace, FakeSlack, twinOf } from "@resident/testkit/slack";
import { loadConfig } from "../apps/server/src/config.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { startService } from "../apps/server/src/service.ts";

const say = (line: string) => process.stdout.write(`${line}\n`);

const dataDir = await mkdtemp(join(tmpdir(), "resident-demo-"));
const slack = await new FakeSlack().start();
const llm = await new FakeAnthropic({
  answer: (call) => `Happy to help with "${call.messages.at(-1)?.text}".`,
}).start();
const adminToken = "demo-operator-token-0123456789";
const config = loadConfig({
  PORT: "0",
  HOST: "127.0.0.1",
  DATA_DIR: dataDir,
  ADMIN_TOKEN: adminToken,
  ANTHROPIC_API_KEY: "demo-key",
  ANTHROPIC_BASE_URL: llm.url,
  SLACK_API_URL: slack.apiUrl,
  LOG_LEVEL: "error",
});
say("starting one resident instance (embedded PGlite, in-process store), a fake Slack and a fake Anthropic…");
const service = await startService(config, createLogger("error", "demo"));
try {
  const ws = await connectSlackWorkspace(service.url, new AdminApi(adminToken, service.url), slack);
  say(`tenant ${ws.tenantId} connected Slack workspace ${ws.workspaceId}; webhook ${ws.webhookUrl}\n`);

  const mention = appMention(ws.bot, "what are your opening hours?");
  const deliveries: [string, () => Promise<{ status: number }>][] = [
    ["app_mention", () => ws.send(mention)],
    ["the same event again, concurrently", () => ws.send(mention)],
    ["Slack's retry 1 (http_timeout)", () => ws.send(mention, { retryNum: 1, retryReason: "http_timeout" })],
    ["its message.channels twin (new event id)", () => ws.send(twinOf(mention))],
    ["a message from another app's bot", () => ws.send(botMessage(ws.bot, "deploy finished"))],
  ];
  const answers = await Promise.all(deliveries.map(([, send]) => send()));
  for (const [i, [what]] of deliveries.entries()) say(`  → ${what.padEnd(44)} HTTP ${answers[i]?.status}`);

  await until(() => slack.posts().length === 1);
  await settle(1_500);
  say("\nat the fake Slack:");
  for (const post of slack.posts()) say(`  #${post.channel} (thread ${post.thread_ts}): ${post.text}`);
  say(`\nLLM calls: ${llm.callCount()}   Slack posts: ${slack.posts().length}   deliveries: ${deliveries.length}`);
  const totals = await until(async () => {
    const { totals } = await ws.tenantAdmin.expect<{ totals: Record<string, number> }>(
      200,
      "GET",
      `/tenants/${ws.tenantId}/stats`,
    );
    return totals.replies === 1 && totals;
  });
  say(`stats: ${JSON.stringify(totals)}`);
} finally {
  await service.close();
  await Promise.all([slack.close(), llm.close()]);
  await rm(dataDir, { recursive: true, force: true });
}

/** Polls until `read` gives something, for 20 s at most: a script, so vitest's vi.waitFor is not at hand. */
async function until<T>(read: () => T | false | Promise<T | false>): Promise<T> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await settle(50)) {
    const value = await read();
    if (value !== false) return value;
  }
  throw new Error("the demo did not settle within 20 s");
}
