import { settle } from "@resident/testkit";
import {
  appMention,
  appUninstalled,
  type FakeInstallTarget,
  type FakeSlackBot,
  type SlackEventEnvelope,
  slackId,
  tokensRevoked,
  twinOf,
  urlVerification,
} from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { InProcessService } from "./support/in-process-service.ts";
import {
  approveAt,
  beginInstall,
  type DistributedAppService,
  installThroughOAuth,
  returnTo,
  startDistributedAppService,
} from "./support/slack-install.ts";

let s: InProcessService;
let appEvents: DistributedAppService["atTheAppUrl"];

beforeAll(async () => {
  ({ s, atTheAppUrl: appEvents } = await startDistributedAppService());
});
afterAll(() => s?.close());

const exchanges = () => s.slack.callsTo("oauth.v2.access").length;

const installed = (target?: FakeInstallTarget) => installThroughOAuth(s, target);
const postsBy = (bot: FakeSlackBot) => s.slack.posts().filter((post) => post.bot_id === bot.botId);

async function answeredOnceBy(bot: FakeSlackBot, delivery: SlackEventEnvelope) {
  await vi.waitFor(() => expect(s.slack.postsInThread(delivery.event.channel, delivery.event.ts)).toHaveLength(1), {
    timeout: 20_000,
    interval: 50,
  });
  await settle(1_000);
  const replies = s.slack.postsInThread(delivery.event.channel, delivery.event.ts);
  expect(replies).toHaveLength(1);
  // Posted with the installation's own bot token: the fake names the bot that token belongs to.
  expect(replies[0]).toMatchObject({ bot_id: bot.botId, team: bot.teamId });
}

describe("Add to Slack", () => {
  it("begins with Slack's authorize URL for the app's scopes, a fresh state, and that state in a cookie", async () => {
    const tenant = await s.operator.tenantWithAdmin("Acme");
    const begun = await beginInstall(tenant.admin, tenant.tenantId);
    const url = new URL(begun.authorizeUrl);
    expect(`${url.origin}${url.pathname}`).toBe(s.slack.oauthUrl);
    expect(url.searchParams.get("client_id")).toMatch(/^\d+\.\d+$/);
    expect(url.searchParams.get("scope")?.split(",")).toEqual(
      expect.arrayContaining(["app_mentions:read", "chat:write", "im:history", "channels:history"]),
    );
    expect(url.searchParams.get("redirect_uri")).toBe(`${s.url}/slack/oauth/callback`);
    const state = url.searchParams.get("state") ?? "";
    expect(state).toMatch(/^[\w-]{43}$/);
    expect(begun.cookie).toBe(`resident-slack-install=${state}`);
    const again = await beginInstall(tenant.admin, tenant.tenantId);
    expect(new URL(again.authorizeUrl).searchParams.get("state")).not.toBe(state);

    // Not for another tenant's admin, not without a token.
    const other = await s.operator.tenantWithAdmin("Other");
    expect((await other.admin.request("POST", `/tenants/${tenant.tenantId}/installs/slack`)).status).toBe(404);
    expect(
      (await fetch(`${s.url}/admin/api/tenants/${tenant.tenantId}/installs/slack`, { method: "POST" })).status,
    ).toBe(401);
    expect((await tenant.admin.request("POST", `/tenants/${tenant.tenantId}/installs/teams`)).status).toBe(404);
    const platforms = await tenant.admin.platforms();
    expect(platforms.find((p) => p.platform === "slack")?.installable).toBe(true);
    expect(platforms.find((p) => p.platform === "teams")?.installable).toBe(false);
  });

  it("keeps the installation as a workspace of the installing admin's tenant, its token sealed and write-only", async () => {
    const before = exchanges();
    const { tenantId, admin, workspaceId, bot, target } = await installed();
    expect(exchanges()).toBe(before + 1);
    const workspace = await admin.workspace(tenantId, workspaceId);
    expect(workspace).toMatchObject({
      platform: "slack",
      name: target.teamName,
      installed: true,
      webhookUrl: `${s.url}/slack/events`,
      credentialFields: ["botToken"],
      identity: { botUserId: bot.userId, botId: bot.botId, teamId: target.teamId, appId: bot.appId },
    });
    expect(JSON.stringify(await admin.workspaces(tenantId))).not.toContain(bot.token);
    expect(s.logs.join("\n")).not.toContain(bot.token);
    const audit = await admin.audit(tenantId);
    expect(audit[0]).toMatchObject({ action: "workspace.install", target: workspaceId });
  });

  it("keeps a rotating token's refresh token and its expiry (epoch ms), the shape token rotation reads", async () => {
    s.slack.oauth.rotateTokens(43_200);
    try {
      const { tenantId, admin, workspaceId, bot } = await installed();
      const exchangedAt = s.slack.callsTo("oauth.v2.access").at(-1)?.at ?? 0;
      expect((await admin.workspace(tenantId, workspaceId)).credentialFields).toEqual([
        "botToken",
        "botRefreshToken",
        "botTokenExpiresAt",
      ]);
      const { credentials } = (await s.service.runtime.tenants.directory.workspace(workspaceId)) as {
        credentials: { botToken: string; botRefreshToken: string; botTokenExpiresAt: number };
      };
      expect(credentials.botToken).toBe(bot.token);
      expect(credentials.botToken).toMatch(/^xoxe\.xoxb-/);
      expect(credentials.botRefreshToken).toMatch(/^xoxe-1-/);
      // Whole seconds: Slack's expires_in, counted from the exchange.
      expect(credentials.botTokenExpiresAt).toBeGreaterThan(exchangedAt + 43_200_000 - 2_000);
      expect(credentials.botTokenExpiresAt).toBeLessThan(exchangedAt + 43_200_000 + 2_000);
      expect(s.logs.join("\n")).not.toContain(credentials.botRefreshToken);
    } finally {
      s.slack.oauth.rotateTokens(undefined);
    }
  });

  it("refuses a callback without the browser's cookie, with another state, or a second time; nothing changes", async () => {
    const tenant = await s.operator.tenantWithAdmin("Refusals");
    const target = s.slack.oauth.offer();
    const begun = await beginInstall(tenant.admin, tenant.tenantId);
    const other = await beginInstall(tenant.admin, tenant.tenantId);
    const callback = await approveAt(s.slack, begun, target);
    const before = exchanges();

    const refusals = [
      await returnTo(callback), // no cookie
      await returnTo(callback, other.cookie), // another install's cookie: the state is not this browser's
      await returnTo(callback.replace(/state=[^&]+/, "state=forged"), begun.cookie),
      await returnTo(callback.replace(/&?state=[^&]+/, ""), begun.cookie), // no state at all
      await returnTo(callback.replace(/state=[^&]+/, "state=forged"), "resident-slack-install=forged"),
    ];
    for (const refusal of refusals) {
      expect(refusal.status).toBe(400);
      expect(refusal.body).toContain("Nothing was installed");
    }
    expect(exchanges()).toBe(before);
    expect(await tenant.admin.workspaces(tenant.tenantId)).toEqual([]);

    // The state still holds for its own browser, once.
    expect((await returnTo(callback, begun.cookie)).status).toBe(303);
    expect(exchanges()).toBe(before + 1);
    const reused = await returnTo(callback, begun.cookie);
    expect(reused.status).toBe(400);
    expect(exchanges()).toBe(before + 1);
    expect(await tenant.admin.workspaces(tenant.tenantId)).toHaveLength(1);
  });

  it("refuses a state whose admin token was revoked before the admin came back", async () => {
    const tenant = await s.operator.tenantWithAdmin("Revoked");
    const begun = await beginInstall(tenant.admin, tenant.tenantId);
    const callback = await approveAt(s.slack, begun, s.slack.oauth.offer());
    const { tokenId } = (await tenant.admin.me()) as { tokenId: string };
    await s.operator.revokeToken(tenant.tenantId, tokenId);
    const before = exchanges();
    expect((await returnTo(callback, begun.cookie)).status).toBe(400);
    expect(exchanges()).toBe(before);
    expect(await s.operator.workspaces(tenant.tenantId)).toEqual([]);
  });

  it("refuses another tenant's install of a team that is already installed, and keeps the first", async () => {
    const first = await installed();
    const intruder = await s.operator.tenantWithAdmin("Intruder");
    const begun = await beginInstall(intruder.admin, intruder.tenantId);
    const back = await returnTo(await approveAt(s.slack, begun, first.target), begun.cookie);
    expect(back.status).toBe(400);
    expect(back.body).toContain("already installed for another tenant");
    expect(await intruder.admin.workspaces(intruder.tenantId)).toEqual([]);
    expect((await first.admin.workspace(first.tenantId, first.workspaceId)).identity.botId).toBe(first.bot.botId);
  });
});

describe("the app's one Request URL", () => {
  it("answers each installation's events in its own workspace, with its own bot token", async () => {
    const [a, b] = [await installed(), await installed()];
    const [forA, forB] = [appMention(a.bot, "hello from A"), appMention(b.bot, "hello from B")];
    // Each delivered twice and with its twin, all at once: the same gate as a workspace's webhook.
    const statuses = await Promise.all(
      [forA, forB].flatMap((delivery) => [appEvents(delivery), appEvents(delivery), appEvents(twinOf(delivery))]),
    );
    expect(statuses.map((r) => r.status)).toEqual(Array(6).fill(200));
    await answeredOnceBy(a.bot, forA);
    await answeredOnceBy(b.bot, forB);
    expect(postsBy(a.bot).map((post) => post.channel)).toEqual([forA.event.channel]);
    expect(postsBy(b.bot).map((post) => post.channel)).toEqual([forB.event.channel]);
    const stats = await a.admin.stats(a.tenantId);
    expect(stats.workspaces[a.workspaceId]).toMatchObject({ events: 3, duplicateEvents: 2, replies: 1 });
  });

  it("routes an org-wide Enterprise Grid install's events by their enterprise", async () => {
    const enterpriseId = slackId("E");
    const org = await installed(
      s.slack.oauth.offer({ enterpriseId, enterpriseName: "Acme Grid", orgWide: true, teamName: "Acme Grid" }),
    );
    const workspace = await org.admin.workspace(org.tenantId, org.workspaceId);
    expect(workspace).toMatchObject({ name: "Acme Grid", identity: { enterpriseId } });
    // A message in one of the org's workspaces: its own team, the org's installation.
    const mention = appMention({ ...org.bot, teamId: slackId("T") }, "hello from the org");
    expect((await appEvents(mention)).status).toBe(200);
    await answeredOnceBy(org.bot, { ...mention });
  });

  it("refuses a delivery of no installation (404), a bad signature (401), and answers the URL check", async () => {
    const calls = s.llm.calls().length;
    const stranger = { teamId: slackId("T"), appId: slackId("A"), userId: slackId("U"), botId: slackId("B") };
    const unknown = appMention(stranger, "who am I?");
    const refused = await appEvents(unknown);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ error: "unknown workspace" });
    const a = await installed();
    expect((await appEvents(appMention(a.bot, "forged"), "not-the-app-secret")).status).toBe(401);
    const { challenge } = urlVerification();
    const check = await appEvents(urlVerification(challenge));
    expect(await check.json()).toEqual({ challenge });
    await settle(1_000);
    expect(s.llm.calls().length).toBe(calls);
    expect(s.slack.postsInThread(unknown.event.channel, unknown.event.ts)).toEqual([]);
  });

  it("disables a workspace on app_uninstalled: no more answers, the console says why; a new install enables it", async () => {
    const a = await installed();
    expect((await appEvents(appUninstalled(a.bot))).status).toBe(200);
    const disabled = await a.admin.workspace(a.tenantId, a.workspaceId);
    expect(disabled.disabled).toEqual({ at: expect.any(String), reason: expect.stringMatching(/^app_uninstalled/) });
    const after = appMention(a.bot, "anyone there?");
    expect((await appEvents(after)).status).toBe(404);
    await settle(1_000);
    expect(postsBy(a.bot)).toEqual([]);

    const begun = await beginInstall(a.admin, a.tenantId);
    expect((await returnTo(await approveAt(s.slack, begun, a.target), begun.cookie)).status).toBe(303);
    expect((await a.admin.workspace(a.tenantId, a.workspaceId)).disabled).toBeUndefined();
    const bot = s.slack.oauth.bots().at(-1) as FakeSlackBot;
    const back = appMention(bot, "back again?");
    expect((await appEvents(back)).status).toBe(200);
    await answeredOnceBy(bot, back);
  });

  it("disables a workspace when its bot token is revoked, not when only user tokens are", async () => {
    const a = await installed();
    expect((await appEvents(tokensRevoked(a.bot, { oauth: [slackId("U")] }))).status).toBe(200);
    expect((await a.admin.workspace(a.tenantId, a.workspaceId)).disabled).toBeUndefined();
    expect((await appEvents(tokensRevoked(a.bot))).status).toBe(200);
    expect((await a.admin.workspace(a.tenantId, a.workspaceId)).disabled?.reason).toMatch(/^tokens_revoked/);
  });
});
