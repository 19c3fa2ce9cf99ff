import { AdminApi } from "@resident/admin-api";
import { deliver } from "@resident/testkit";
import { appMention, connectSlackWorkspace, type SlackWorkspace, signSlackRequest } from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

let s: InProcessService;
let a: SlackWorkspace;
let b: SlackWorkspace;
beforeAll(async () => {
  s = await startInProcessService();
  [a, b] = await Promise.all([
    connectSlackWorkspace(s.url, s.operator, s.slack),
    connectSlackWorkspace(s.url, s.operator, s.slack),
  ]);
});
afterAll(() => s?.close());

describe("admin API: tenant isolation", () => {
  it("a tenant admin token finds nothing of another tenant and changes nothing of it", async () => {
    const asA = a.tenantAdmin;
    const bWorkspace = `/tenants/${b.tenantId}/workspaces/${b.workspaceId}`;
    const viaOwnTenant = `/tenants/${a.tenantId}/workspaces/${b.workspaceId}`;
    const attempts: [string, string, unknown?][] = [
      ["GET", `/tenants/${b.tenantId}`],
      ["GET", `/tenants/${b.tenantId}/workspaces`],
      ["POST", `/tenants/${b.tenantId}/workspaces`, { platform: "slack", name: "x", credentials: {} }],
      ["GET", bWorkspace],
      ["PATCH", bWorkspace, { name: "taken over" }],
      ["DELETE", bWorkspace],
      ["GET", viaOwnTenant],
      ["PATCH", viaOwnTenant, { name: "taken over" }],
      ["DELETE", viaOwnTenant],
      ["POST", `/tenants/${b.tenantId}/tokens`],
      ["GET", `/tenants/${b.tenantId}/stats`],
      ["GET", `/tenants/${b.tenantId}/audit`],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await asA.request(method, path, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
    }
    expect((await asA.request("POST", "/tenants", { name: "mine now" })).status).toBe(403);
    expect((await asA.expect<{ id: string }[]>(200, "GET", "/tenants")).map((t) => t.id)).toEqual([a.tenantId]);

    const intact = await b.tenantAdmin.expect<{ name: string }>(200, "GET", bWorkspace);
    expect(intact.name).toBe("Support team");
    const operatorView = await s.operator.expect<{ id: string }[]>(200, "GET", "/tenants");
    expect(operatorView.map((t) => t.id)).toEqual(expect.arrayContaining([a.tenantId, b.tenantId]));
  });

  it("refuses a missing or unknown token with 401", async () => {
    expect((await new AdminApi("rsd_unknown", s.url).request("GET", "/tenants")).status).toBe(401);
    const bare = await fetch(`${s.url}/admin/api/tenants`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toContain("Bearer");
  });
});

describe("admin API: workspaces", () => {
  it("checks credentials with the platform before storing them", async () => {
    const tenant = await s.operator.tenantWithAdmin("careful");
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
    const path = `/tenants/${a.tenantId}/workspaces/${a.workspaceId}`;
    const shown = await a.tenantAdmin.expect<Record<string, unknown>>(200, "GET", path);
    expect(shown).toMatchObject({
      platform: "slack",
      webhookPath: `/slack/events/${a.workspaceId}`,
      webhookUrl: `https://resident.example/slack/events/${a.workspaceId}`,
      credentialFields: expect.arrayContaining(["signingSecret", "botToken"]),
      identity: { botUserId: a.bot.userId, botId: a.bot.botId, teamId: a.bot.teamId },
    });
    expect(shown).not.toHaveProperty("credentials");
    await a.tenantAdmin.expect(200, "PATCH", path, { settings: { systemPrompt: "Be brief." } });
    const patched = await a.tenantAdmin.expect<{ settings: Record<string, unknown> }>(200, "PATCH", path, {
      settings: { model: "claude-other" },
    });
    expect(patched.settings).toEqual({ systemPrompt: "Be brief.", model: "claude-other" });
  });

  it("a deleted workspace stops receiving at once", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const mention = appMention(ws.bot, "still there?");
    expect((await ws.send(mention)).status).toBe(200);
    await vi.waitFor(() => expect(s.slack.posts().filter((p) => p.channel === mention.event.channel)).toHaveLength(1), {
      timeout: 20_000,
      interval: 50,
    });
    await ws.tenantAdmin.expect(204, "DELETE", `/tenants/${ws.tenantId}/workspaces/${ws.workspaceId}`);
    const after = signSlackRequest({ signingSecret: ws.signingSecret, body: appMention(ws.bot, "gone?") });
    expect((await deliver(ws.webhookUrl, after)).status).toBe(404);
  });
});
