import { randomBytes } from "node:crypto";
import { deliver, settle } from "@resident/testkit";
import { appMention, type FakeSlackBot, type FakeTokenSet, signSlackRequest } from "@resident/testkit/slack";
import { expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { countByTag, drained, fire, llmTag, notExactly, question } from "./support/messages.ts";

/*
 * Slack token rotation across three instances behind nginx. A workspace's bot token (from the tenants API, as any
 * admin or the OAuth install stores it: botToken, botRefreshToken, botTokenExpiresAt) is minutes from expiry when 20
 * messages arrive at once; the fake Slack honours each refresh token once (invalid_refresh_token on a second use)
 * and answers an expired token with token_expired. Counted at the fake: exactly one refresh, every message answered
 * once with the new token, no post refused. Then the instance holding the refresh lock is killed (SIGKILL) while
 * Slack sits on its refresh: the others take the lock at once, and one refresh is all that succeeds.
 */

const d = useDeployment({
  instances: 3,
  platforms: ["slack"],
  env: { CLAIM_LEASE_SECONDS: "4", JOB_LOCK_SECONDS: "4", WORKER_CONCURRENCY: "8" },
  logLevel: "info",
});

interface RotatingWorkspace {
  workspaceId: string;
  bot: FakeSlackBot & FakeTokenSet;
  send(body: unknown): ReturnType<typeof deliver>;
}

/** A workspace whose rotating token expires in `lifetimeMs`, created through the tenants API (no OAuth). */
async function rotatingWorkspace(lifetimeMs: number): Promise<RotatingWorkspace> {
  const tenant = await d().operator.tenantWithAdmin(`rotation ${randomBytes(3).toString("hex")}`);
  const bot = d().slack.addRotatingBot(lifetimeMs);
  const signingSecret = randomBytes(16).toString("hex");
  const workspace = await tenant.admin.createWorkspace(tenant.tenantId, {
    platform: "slack",
    name: "Rotating",
    credentials: {
      signingSecret,
      botToken: bot.botToken,
      botRefreshToken: bot.botRefreshToken,
      botTokenExpiresAt: bot.botTokenExpiresAt,
    },
    settings: { streaming: false },
  });
  const url = `${d().url}${workspace.webhookPath}`;
  return {
    workspaceId: workspace.id,
    bot,
    send: (body) => deliver(url, signSlackRequest({ signingSecret, body })),
  };
}

/** The fake's refreshes of one bot's token chain, from its first refresh token on. */
function refreshesOf(ws: RotatingWorkspace) {
  const chain = new Set([ws.bot.botRefreshToken]);
  const mine = [];
  for (const refresh of d().slack.rotation.refreshes) {
    if (!chain.has(refresh.refreshToken)) continue;
    mine.push(refresh);
  }
  return mine;
}

/** Which bot token each chat.postMessage for these tags carried, and what the fake answered. */
function postsFor(tags: Set<string>) {
  return d()
    .slack.callsTo("chat.postMessage")
    .filter((call) => [...tags].some((tag) => String((call.body as { text?: unknown })?.text ?? "").includes(tag)))
    .map((call) => ({ token: /^Bearer (.+)$/.exec(call.headers.authorization ?? "")?.[1], status: call.status }));
}

it("20 concurrent sends from 3 instances as the token nears expiry: exactly one refresh at Slack", {
  timeout: 120_000,
}, async () => {
  // Four minutes left: inside the five-minute margin, so the first send refreshes.
  const ws = await rotatingWorkspace(4 * 60_000);
  const tags = new Set<string>();
  const deliveries = Array.from({ length: 20 }, () => {
    const { tag, text } = question("rot");
    tags.add(tag);
    const body = appMention(ws.bot, text);
    return () => ws.send(body);
  });
  // The answers are held and let go together, so the 20 sends meet at the token at the same moment.
  d().llm.hold(1_500, 20);
  const fired = await fire(deliveries, 20);
  await vi.waitFor(() => expect(d().slack.posts().filter((p) => [...tags].some((t) => p.text.includes(t)))).toHaveLength(20), {
    timeout: 60_000,
    interval: 100,
  });
  await drained(d(), 30_000);
  await settle(1_000);

  const refreshes = refreshesOf(ws);
  const fresh = refreshes[0]?.issued;
  const posts = postsFor(tags);
  const { replies, calls } = countByTag(d(), tags);
  const answeredBy = new Set(
    d()
      .llm.calls()
      .filter((call) => tags.has(llmTag(call) ?? ""))
      .map((call) => d().instanceOf(call)?.name),
  );
  report("rotation", {
    messages: tags.size,
    acked: fired.statuses.get(200) ?? 0,
    instancesAnswering: answeredBy.size,
    refreshCalls: d().slack.callsTo("oauth.v2.access").length,
    refreshes: refreshes.length,
    postsWithNewToken: posts.filter((p) => p.token === fresh).length,
    postsWithOldToken: posts.filter((p) => p.token === ws.bot.botToken).length,
  });
  expect(fired.statuses.get(200)).toBe(20);
  expect(d().slack.callsTo("oauth.v2.access"), "refresh calls at the fake").toHaveLength(1);
  expect(refreshes).toEqual([expect.objectContaining({ refreshToken: ws.bot.botRefreshToken, issued: fresh })]);
  expect(fresh).toMatch(/^xoxe\.xoxb-/);
  expect(notExactly(tags, replies), "messages not answered exactly once").toEqual([]);
  expect(notExactly(tags, calls), "LLM calls not once per message").toEqual([]);
  // Every post went out once, with the new token, and none was refused.
  expect(posts).toHaveLength(20);
  expect(posts.every((p) => p.token === fresh && p.status === 200)).toBe(true);
  expect(answeredBy.size, "the sends came from more than one instance").toBeGreaterThan(1);
});
