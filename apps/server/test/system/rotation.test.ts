import { randomBytes } from "node:crypto";
import { deliver, settle } from "@resident/testkit";
import { appMention, type FakeSlackBot, type FakeTokenSet, signSlackRequest } from "@resident/testkit/slack";
import { expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { countByTag, drained, fire, llmTag, notExactly, question, slackPostsFor } from "./support/messages.ts";

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
  tenantId: string;
  admin: ReturnType<typeof d>["operator"];
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
      // As a form sends it: text, which the schema reads as a number.
      botTokenExpiresAt: String(bot.botTokenExpiresAt),
    },
    settings: { streaming: false },
  });
  const url = `${d().url}${workspace.webhookPath}`;
  return {
    tenantId: tenant.tenantId,
    admin: tenant.admin,
    workspaceId: workspace.id,
    bot,
    send: (body) => deliver(url, signSlackRequest({ signingSecret, body })),
  };
}

/** The fake's refreshes of this workspace's first refresh token. */
function refreshesOf(ws: RotatingWorkspace) {
  return d().slack.rotation.refreshes.filter((refresh) => refresh.refreshToken === ws.bot.botRefreshToken);
}

/** One message per tag, each a delivery through nginx. */
function messages(ws: RotatingWorkspace, prefix: string, count: number) {
  const tags = new Set<string>();
  const deliveries = Array.from({ length: count }, () => {
    const { tag, text } = question(prefix);
    tags.add(tag);
    const body = appMention(ws.bot, text);
    return () => ws.send(body);
  });
  return { tags, deliveries };
}

/** Which bot token each chat.postMessage for these tags carried, and what the fake answered. */
function postMessageCallsFor(tags: Set<string>) {
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
  const { tags, deliveries } = messages(ws, "rot", 20);
  // The answers are held and let go together, so the 20 sends meet at the token at the same moment.
  d().llm.hold(1_500, 20);
  const fired = await fire(deliveries, 20);
  await vi.waitFor(() => expect(slackPostsFor(d(), tags)).toHaveLength(20), { timeout: 60_000, interval: 100 });
  await drained(d(), 30_000);
  await settle(1_000);

  const refreshes = refreshesOf(ws);
  const fresh = refreshes[0]?.issued;
  const posts = postMessageCallsFor(tags);
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

it("a token Slack calls expired hours before its time: one refresh, each send made once more and answered once", {
  timeout: 120_000,
}, async () => {
  const ws = await rotatingWorkspace(12 * 3_600_000);
  // Slack ends it early (its clock, or a refresh done by a copy of the app elsewhere): token_expired from now on.
  d().slack.rotation.expire(ws.bot.botToken);
  const { tags, deliveries } = messages(ws, "rote", 10);
  d().llm.hold(1_000, 10);
  const fired = await fire(deliveries, 10);
  await vi.waitFor(() => expect(slackPostsFor(d(), tags)).toHaveLength(10), { timeout: 60_000, interval: 100 });
  await drained(d(), 30_000);
  await settle(1_000);
  const refreshes = refreshesOf(ws);
  const fresh = refreshes[0]?.issued;
  const posts = postMessageCallsFor(tags);
  const { replies } = countByTag(d(), tags);
  report("rotation, expired early", {
    messages: tags.size,
    acked: fired.statuses.get(200) ?? 0,
    refreshes: refreshes.length,
    refusedWithOldToken: posts.filter((p) => p.token === ws.bot.botToken).length,
    postedWithNewToken: posts.filter((p) => p.token === fresh).length,
  });
  expect(refreshes).toEqual([expect.objectContaining({ issued: fresh })]);
  expect(notExactly(tags, replies), "messages not answered exactly once").toEqual([]);
  // Each send refused at most once with the old token, then made with the new one; the later ones use it at once.
  expect(posts.filter((p) => p.token === fresh)).toHaveLength(10);
  expect(posts.filter((p) => p.token === ws.bot.botToken).length).toBeLessThanOrEqual(10);
  expect(posts.filter((p) => p.token === ws.bot.botToken).length).toBeGreaterThan(0);
});

it("the instance holding the refresh lock is killed while Slack sits on its refresh: the others recover with one refresh", {
  timeout: 180_000,
}, async () => {
  const ws = await rotatingWorkspace(4 * 60_000);
  const stallMs = 20_000;
  // The holder's refresh waits at Slack's door; Slack acts on it only once the stall is over.
  d().slack.stall(stallMs, { method: "oauth.v2.access", times: 1 });
  const refreshCallsBefore = d().slack.callsTo("oauth.v2.access").length;
  const first = messages(ws, "rotk", 1);
  await fire(first.deliveries, 1);
  await vi.waitFor(() => expect(d().slack.callsTo("oauth.v2.access").length).toBe(refreshCallsBefore + 1), {
    timeout: 30_000,
    interval: 25,
  });
  const [firstTag] = [...first.tags];
  const holder = d().instanceOf(
    d()
      .llm.calls()
      .find((call) => llmTag(call) === firstTag) as never,
  );
  if (!holder) throw new Error("no instance answered the first message");
  await holder.kill();
  const killedAt = Date.now();
  // The others' sends meet the lock the dead instance held.
  const rest = messages(ws, "rotk", 10);
  const fired = await fire(rest.deliveries, 10);
  const tags = new Set([...first.tags, ...rest.tags]);
  await vi.waitFor(() => expect(slackPostsFor(d(), tags)).toHaveLength(tags.size), { timeout: 90_000, interval: 100 });
  const recoveredInMs = Math.min(...slackPostsFor(d(), rest.tags).map((p) => Number(p.ts) * 1000)) - killedAt;
  await drained(d(), 30_000);
  // The held refresh reaches Slack once its stall is over, by when its refresh token is spent.
  await vi.waitFor(() => expect(refreshesOf(ws)).toHaveLength(2), { timeout: stallMs + 10_000, interval: 200 });

  const refreshes = refreshesOf(ws);
  const fresh = refreshes.find((refresh) => refresh.issued)?.issued;
  const posts = postMessageCallsFor(tags);
  const { replies } = countByTag(d(), tags);
  report("rotation, holder killed", {
    holder: holder.name,
    refreshCalls: d().slack.callsTo("oauth.v2.access").length - refreshCallsBefore,
    successfulRefreshes: refreshes.filter((refresh) => refresh.issued).length,
    deadHoldersRefresh: refreshes.at(-1)?.error,
    acked: `${fired.statuses.get(200) ?? 0}/${rest.deliveries.length}`,
    firstReplyAfterKillMs: recoveredInMs,
    postsWithNewToken: `${posts.filter((p) => p.token === fresh).length}/${tags.size}`,
  });
  expect(
    refreshes.filter((refresh) => refresh.issued),
    "successful refreshes",
  ).toHaveLength(1);
  // The dead holder's refresh, acted on late, found its token spent: nobody was waiting for its answer.
  expect(refreshes.at(-1)).toMatchObject({ error: "invalid_refresh_token" });
  expect(notExactly(tags, replies), "messages not answered exactly once").toEqual([]);
  expect(posts.every((p) => p.token === fresh && p.status === 200)).toBe(true);
});

it("a refresh Slack refuses (invalid_refresh_token) is the workspace's last error, and nothing is posted", {
  timeout: 90_000,
}, async () => {
  const ws = await rotatingWorkspace(4 * 60_000);
  // Spent elsewhere (another copy of the service, a refresh whose answer was lost): Slack honours it once.
  const { app } = d().slack.rotation;
  const spent = await fetch(`${d().slack.apiUrl}oauth.v2.access`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: app.clientId,
      client_secret: app.clientSecret,
      grant_type: "refresh_token",
      refresh_token: ws.bot.botRefreshToken,
    }),
  });
  expect(((await spent.json()) as { ok: boolean }).ok).toBe(true);
  const { tags, deliveries } = messages(ws, "rotr", 1);
  await fire(deliveries, 1);
  const lastError = await vi.waitFor(
    async () => {
      const stats = await ws.admin.expect<{
        activity: Record<string, { lastError?: { stage: string; message: string } }>;
      }>(200, "GET", `/tenants/${ws.tenantId}/stats`);
      const error = stats.activity[ws.workspaceId]?.lastError;
      expect(error?.message).toContain("invalid_refresh_token");
      return error;
    },
    { timeout: 60_000, interval: 250 },
  );
  await drained(d(), 30_000);
  report("rotation, refresh refused", { lastError: lastError?.message, posts: slackPostsFor(d(), tags).length });
  expect(slackPostsFor(d(), tags)).toEqual([]);
  // Refused for good: tried once, not again and again.
  expect(refreshesOf(ws).filter((refresh) => refresh.error)).toHaveLength(1);
});
