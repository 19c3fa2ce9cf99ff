import { AdminApi } from "@resident/admin-api";
import { deliver } from "@resident/testkit";
import { appMention, connectSlackWorkspace, signSlackRequest } from "@resident/testkit/slack";
import { describe, expect, it, vi } from "vitest";
import { serviceWithTwoTenants } from "./support/two-tenants.ts";

const two = serviceWithTwoTenants();

describe("admin API: tenant isolation", () => {
  it("a tenant admin token finds nothing of another tenant and changes nothing of it", async () => {
    const asA = two.a.tenantAdmin;
    const bWorkspace = `/tenants/${two.b.tenantId}/workspaces/${two.b.workspaceId}`;
    const viaOwnTenant = `/tenants/${two.a.tenantId}/workspaces/${two.b.workspaceId}`;
    const attempts: [string, string, unknown?][] = [
      ["GET", `/tenants/${two.b.tenantId}`],
      ["GET", `/tenants/${two.b.tenantId}/workspaces`],
      ["POST", `/tenants/${two.b.tenantId}/workspaces`, { platform: "slack", name: "x", credentials: {} }],
      ["GET", bWorkspace],
      ["PATCH", bWorkspace, { name: "taken over" }],
      ["DELETE", bWorkspace],
      ["GET", viaOwnTenant],
      ["PATCH", viaOwnTenant, { name: "taken over" }],
      ["DELETE", viaOwnTenant],
      ["POST", `/tenants/${two.b.tenantId}/tokens`],
      ["GET", `/tenants/${two.b.tenantId}/stats`],
      ["GET", `/tenants/${two.b.tenantId}/audit`],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await asA.request(method, path, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
    }
    expect((await asA.request("POST", "/tenants", { name: "mine now" })).status).toBe(403);
    expect((await asA.expect<{ id: string }[]>(200, "GET", "/tenants")).map((t) => t.id)).toEqual([two.a.tenantId]);

    const intact = await two.b.tenantAdmin.expect<{ name: string }>(200, "GET", bWorkspace);
    expect(intact.name).toBe("Support team");
    const operatorView = await two.service.operator.expect<{ id: string }[]>(200, "GET", "/tenants");
    expect(operatorView.map((t) => t.id)).toEqual(expect.arrayContaining([two.a.tenantId, two.b.tenantId]));
  });

  it("refuses a missing or unknown token with 401", async () => {
    expect((await new AdminApi("rsd_unknown", two.service.url).request("GET", "/tenants")).status).toBe(401);
    const bare = await fetch(`${two.service.url}/admin/api/tenants`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toContain("Bearer");
  });
});

describe("admin API: workspaces", () => {
  it("checks credentials with the platform before storing them", async () => {
    const tenant = await two.service.operator.tenantWithAdmin("careful");
    const refused = await tenant.admin.request<{ error: string; reason: string; detail: string }>(
      "POST",
      `/tenants/${tenant.tenantId}/workspaces`,
      {
        platform: "slack",
        name: "wrong token",
        credentials: { signingSecret: "0123456789abcdef", botToken: "xoxb-not-a-real-token" },
      },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.error).toContain("invalid_auth");
    // A stable reason the console translates, beside the platform's own words.
    expect(refused.body).toMatchObject({ reason: "refused", detail: expect.stringContaining("invalid_auth") });
    const malformed = await tenant.admin.request("POST", `/tenants/${tenant.tenantId}/workspaces`, {
      platform: "slack",
      name: "no secret",
      credentials: { botToken: "xoxb-1" },
    });
    expect(malformed.status).toBe(400);
    const unknownPlatform = await tenant.admin.request("POST", `/tenants/${tenant.tenantId}/workspaces`, {
      platform: "irc",
      name: "x",
      credentials: {},
    });
    expect(unknownPlatform.status).toBe(400);
    expect(await tenant.admin.expect(200, "GET", `/tenants/${tenant.tenantId}/workspaces`)).toEqual([]);
  });

  it("shows the webhook URL and the credential fields that are set, merges settings, and records the bot", async () => {
    const path = `/tenants/${two.a.tenantId}/workspaces/${two.a.workspaceId}`;
    const shown = await two.a.tenantAdmin.expect<Record<string, unknown>>(200, "GET", path);
    expect(shown).toMatchObject({
      platform: "slack",
      webhookPath: `/slack/events/${two.a.workspaceId}`,
      webhookUrl: `https://resident.example/slack/events/${two.a.workspaceId}`,
      credentialFields: expect.arrayContaining(["signingSecret", "botToken"]),
      identity: { botUserId: two.a.bot.userId, botId: two.a.bot.botId, teamId: two.a.bot.teamId },
    });
    expect(shown).not.toHaveProperty("credentials");
    await two.a.tenantAdmin.expect(200, "PATCH", path, { settings: { systemPrompt: "Be brief." } });
    const patched = await two.a.tenantAdmin.expect<{ settings: Record<string, unknown> }>(200, "PATCH", path, {
      settings: { model: "claude-other" },
    });
    expect(patched.settings).toEqual({ systemPrompt: "Be brief.", model: "claude-other" });
  });

  it("a deleted workspace stops receiving at once", async () => {
    const ws = await connectSlackWorkspace(two.service.url, two.service.operator, two.service.slack);
    const mention = appMention(ws.bot, "still there?");
    expect((await ws.send(mention)).status).toBe(200);
    await vi.waitFor(
      () => expect(two.service.slack.posts().filter((p) => p.channel === mention.event.channel)).toHaveLength(1),
      {
        timeout: 20_000,
        interval: 50,
      },
    );
    await ws.tenantAdmin.expect(204, "DELETE", `/tenants/${ws.tenantId}/workspaces/${ws.workspaceId}`);
    const after = signSlackRequest({ signingSecret: ws.signingSecret, body: appMention(ws.bot, "gone?") });
    expect((await deliver(ws.webhookUrl, after)).status).toBe(404);
  });
});
