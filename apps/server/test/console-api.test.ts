import { appMention, type SlackWorkspace } from "@resident/testkit/slack";
import { describe, expect, it, vi } from "vitest";
import { serviceWithTwoTenants } from "./support/two-tenants.ts";

/** What the admin console needs from the admin API beyond DESIGN.md's contract, and what guards it. */
const two = serviceWithTwoTenants();

interface Activity {
  lastEventAt?: string;
  lastReplyAt?: string;
  lastError?: { at: string; stage: string; message: string };
}
interface Stats {
  workspaces: Record<string, Record<string, number>>;
  activity: Record<string, Activity>;
}
interface Series {
  range: string;
  bucketSeconds: number;
  points: { at: string; counts: Record<string, number> }[];
}

describe("who is signed in, and the platforms", () => {
  it("tells the operator and a tenant admin apart, naming the admin's tenant", async () => {
    expect(await two.service.operator.expect(200, "GET", "/me")).toEqual({ role: "operator" });
    const tenant = await two.service.operator.expect<{ name: string }>(200, "GET", `/tenants/${two.a.tenantId}`);
    expect(await two.a.tenantAdmin.expect(200, "GET", "/me")).toEqual({
      role: "tenant",
      tenantId: two.a.tenantId,
      tenantName: tenant.name,
      tokenId: expect.stringMatching(/^tk_/),
      mayIssueTokens: false,
    });
  });

  it("serves every enabled platform's guide: fields, steps and both fail modes' consequences", async () => {
    const guides = await two.a.tenantAdmin.expect<Record<string, unknown>[]>(200, "GET", "/platforms");
    expect(guides.map((guide) => guide.platform)).toEqual(["slack", "teams", "chatwork"]);
    expect(guides[0]).toMatchObject({
      displayName: "Slack",
      defaultFailMode: "closed",
      credentialFields: [
        expect.objectContaining({
          name: "signingSecret",
          secret: true,
          label: { en: "Signing secret", ja: "署名シークレット" },
        }),
        expect.objectContaining({ name: "appToken", secret: true }),
        expect.objectContaining({ name: "botToken", secret: true }),
        expect.objectContaining({ name: "botRefreshToken", secret: true, optional: true }),
        expect.objectContaining({ name: "botTokenExpiresAt", secret: false, optional: true }),
      ],
      setupSteps: expect.arrayContaining([
        { en: expect.stringContaining("Request URL"), ja: expect.stringContaining("イベントサブスクリプション") },
      ]),
      outageBehaviour: { en: expect.stringContaining("PostgreSQL"), ja: expect.stringContaining("PostgreSQL") },
      failModeConsequences: {
        open: { en: expect.any(String), ja: expect.any(String) },
        closed: { en: expect.any(String), ja: expect.any(String) },
      },
    });
    expect(guides[2]).toMatchObject({
      defaultFailMode: "open",
      credentialFields: expect.arrayContaining([expect.objectContaining({ name: "webhookTokens", list: true })]),
    });
  });
});

describe("test connection", () => {
  const path = (ws: SlackWorkspace) => `/tenants/${ws.tenantId}/workspaces/${ws.workspaceId}/test-connection`;

  it("checks the stored credentials with the platform and answers with the bot it found", async () => {
    expect(await two.a.tenantAdmin.expect(200, "POST", path(two.a))).toEqual({
      ok: true,
      identity: { botUserId: two.a.bot.userId, botId: two.a.bot.botId, teamId: two.a.bot.teamId },
    });
  });

  it("answers with the platform's own error when the platform refuses them, and never a credential", async () => {
    two.service.slack.error("token_revoked", { method: "auth.test" });
    const answer = await two.a.tenantAdmin.request<{ ok: boolean; error: string }>("POST", path(two.a));
    expect(answer.status).toBe(200);
    expect(answer.body.ok).toBe(false);
    expect(answer.body.error).toContain("token_revoked");
    expect(answer.body).toMatchObject({ reason: "refused", detail: expect.stringContaining("token_revoked") });
    const text = JSON.stringify(answer.body);
    for (const secret of [two.a.bot.token, two.a.signingSecret]) expect(text).not.toContain(secret);
  });
});

describe("activity and series", () => {
  it("show when a workspace last received and answered, and count it in the last bucket of both ranges", async () => {
    const mention = appMention(two.a.bot, "are my stats live?");
    await two.a.send(mention);
    await two.a.send(mention);
    const stats = await vi.waitFor(
      async () => {
        const answer = await two.a.tenantAdmin.expect<Stats>(200, "GET", `/tenants/${two.a.tenantId}/stats`);
        expect(answer.workspaces[two.a.workspaceId]).toMatchObject({ events: 2, duplicateEvents: 1, replies: 1 });
        return answer;
      },
      { timeout: 20_000, interval: 50 },
    );
    const activity = stats.activity[two.a.workspaceId] as Activity;
    expect(Date.parse(activity.lastEventAt as string)).toBeLessThanOrEqual(Date.parse(activity.lastReplyAt as string));
    expect(Date.now() - Date.parse(activity.lastReplyAt as string)).toBeLessThan(60_000);

    for (const [range, length, bucketSeconds] of [
      ["hour", 60, 60],
      ["day", 24, 3_600],
    ] as const) {
      const series = await two.a.tenantAdmin.expect<Series>(
        200,
        "GET",
        `/tenants/${two.a.tenantId}/workspaces/${two.a.workspaceId}/series?range=${range}`,
      );
      expect(series).toMatchObject({ range, bucketSeconds });
      expect(series.points).toHaveLength(length);
      const sum = (counter: string) => series.points.reduce((n, point) => n + (point.counts[counter] ?? 0), 0);
      expect([sum("events"), sum("duplicateEvents"), sum("replies")]).toEqual([2, 1, 1]);
    }
    const unknownRange = `/tenants/${two.a.tenantId}/workspaces/${two.a.workspaceId}/series?range=week`;
    expect((await two.a.tenantAdmin.request("GET", unknownRange)).status).toBe(400);
  });

  it("show the last error with its stage and the platform's words, never a credential", async () => {
    // Slack refuses the stream's opening and then the post the worker falls back to.
    two.service.slack.error("channel_not_found", { method: "chat.startStream" }).error("channel_not_found");
    await two.b.send(appMention(two.b.bot, "will this fail first?"));
    const error = await vi.waitFor(
      async () => {
        const stats = await two.b.tenantAdmin.expect<Stats>(200, "GET", `/tenants/${two.b.tenantId}/stats`);
        expect(stats.activity[two.b.workspaceId]?.lastError).toBeDefined();
        return stats.activity[two.b.workspaceId]?.lastError;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(error).toMatchObject({ stage: "send", message: expect.stringContaining("channel_not_found") });
    for (const secret of [two.b.bot.token, two.b.signingSecret]) expect(JSON.stringify(error)).not.toContain(secret);
  });
});

describe("tenant isolation of the console's endpoints", () => {
  it("answers 404 for another tenant's series and connection test, by its path or through one's own", async () => {
    for (const tenantId of [two.b.tenantId, two.a.tenantId]) {
      const workspace = `/tenants/${tenantId}/workspaces/${two.b.workspaceId}`;
      for (const [method, path] of [
        ["GET", `${workspace}/series?range=hour`],
        ["POST", `${workspace}/test-connection`],
      ] as const) {
        const answer = await two.a.tenantAdmin.request(method, path);
        expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
      }
    }
    const stats = await two.a.tenantAdmin.expect<Stats>(200, "GET", `/tenants/${two.a.tenantId}/stats`);
    expect(Object.keys(stats.activity)).not.toContain(two.b.workspaceId);
  });
});

describe("the console's HTTP", () => {
  it("serves the built console with a strict CSP, nothing inline, and its index for every console path", async () => {
    for (const path of ["/admin", "/admin/", "/admin/tenants/tn_x/workspaces/ws_y"]) {
      const page = await fetch(`${two.service.url}${path}`);
      expect({ path, status: page.status }).toEqual({ path, status: 200 });
      const html = await page.text();
      expect(html).toContain('<div id="app">');
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/\sstyle=|<style/);
      const csp = page.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      expect(page.headers.get("cache-control")).toBe("no-cache");
    }
    const index = await (await fetch(`${two.service.url}/admin/`)).text();
    const script = /<script[^>]*src="([^"]+)"/.exec(index)?.[1] as string;
    const asset = await fetch(`${two.service.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("javascript");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    // Read to its end: a streamed file left unread keeps its connection busy, and the service's close waits for it.
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it("leaves the admin API's unknown paths to be 404s, not pages", async () => {
    const answer = await fetch(`${two.service.url}/admin/api/no-such-thing`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({ error: "not found" });
  });
});
