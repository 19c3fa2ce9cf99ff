import { appMention, connectSlackWorkspace, type SlackWorkspace } from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

/** What the admin console needs from the admin API beyond DESIGN.md's contract, and what guards it. */
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
    expect(await s.operator.expect(200, "GET", "/me")).toEqual({ role: "operator" });
    const tenant = await s.operator.expect<{ name: string }>(200, "GET", `/tenants/${a.tenantId}`);
    expect(await a.tenantAdmin.expect(200, "GET", "/me")).toEqual({
      role: "tenant",
      tenantId: a.tenantId,
      tenantName: tenant.name,
      tokenId: expect.stringMatching(/^tk_/),
      mayIssueTokens: false,
    });
  });

  it("serves every enabled platform's guide: fields, steps and both fail modes' consequences", async () => {
    const guides = await a.tenantAdmin.expect<Record<string, unknown>[]>(200, "GET", "/platforms");
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
    expect(await a.tenantAdmin.expect(200, "POST", path(a))).toEqual({
      ok: true,
      identity: { botUserId: a.bot.userId, botId: a.bot.botId, teamId: a.bot.teamId },
    });
  });

  it("answers with the platform's own error when the platform refuses them, and never a credential", async () => {
    s.slack.error("token_revoked", { method: "auth.test" });
    const answer = await a.tenantAdmin.request<{ ok: boolean; error: string }>("POST", path(a));
    expect(answer.status).toBe(200);
    expect(answer.body.ok).toBe(false);
    expect(answer.body.error).toContain("token_revoked");
    expect(answer.body).toMatchObject({ reason: "refused", detail: expect.stringContaining("token_revoked") });
    const text = JSON.stringify(answer.body);
    for (const secret of [a.bot.token, a.signingSecret]) expect(text).not.toContain(secret);
  });
});

describe("activity and series", () => {
  it("show when a workspace last received and answered, and count it in the last bucket of both ranges", async () => {
    const mention = appMention(a.bot, "are my stats live?");
    await a.send(mention);
    await a.send(mention);
    const stats = await vi.waitFor(
      async () => {
        const answer = await a.tenantAdmin.expect<Stats>(200, "GET", `/tenants/${a.tenantId}/stats`);
        expect(answer.workspaces[a.workspaceId]).toMatchObject({ events: 2, duplicateEvents: 1, replies: 1 });
        return answer;
      },
      { timeout: 20_000, interval: 50 },
    );
    const activity = stats.activity[a.workspaceId] as Activity;
    expect(Date.parse(activity.lastEventAt as string)).toBeLessThanOrEqual(Date.parse(activity.lastReplyAt as string));
    expect(Date.now() - Date.parse(activity.lastReplyAt as string)).toBeLessThan(60_000);

    for (const [range, length, bucketSeconds] of [
      ["hour", 60, 60],
      ["day", 24, 3_600],
    ] as const) {
      const series = await a.tenantAdmin.expect<Series>(
        200,
        "GET",
        `/tenants/${a.tenantId}/workspaces/${a.workspaceId}/series?range=${range}`,
      );
      expect(series).toMatchObject({ range, bucketSeconds });
      expect(series.points).toHaveLength(length);
      const sum = (counter: string) => series.points.reduce((n, point) => n + (point.counts[counter] ?? 0), 0);
      expect([sum("events"), sum("duplicateEvents"), sum("replies")]).toEqual([2, 1, 1]);
    }
    const unknownRange = `/tenants/${a.tenantId}/workspaces/${a.workspaceId}/series?range=week`;
    expect((await a.tenantAdmin.request("GET", unknownRange)).status).toBe(400);
  });

  it("show the last error with its stage and the platform's words, never a credential", async () => {
    // Slack refuses the stream's opening and then the post the worker falls back to.
    s.slack.error("channel_not_found", { method: "chat.startStream" }).error("channel_not_found");
    await b.send(appMention(b.bot, "will this fail first?"));
    const error = await vi.waitFor(
      async () => {
        const stats = await b.tenantAdmin.expect<Stats>(200, "GET", `/tenants/${b.tenantId}/stats`);
        expect(stats.activity[b.workspaceId]?.lastError).toBeDefined();
        return stats.activity[b.workspaceId]?.lastError;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(error).toMatchObject({ stage: "send", message: expect.stringContaining("channel_not_found") });
    for (const secret of [b.bot.token, b.signingSecret]) expect(JSON.stringify(error)).not.toContain(secret);
  });
});

describe("tenant isolation of the console's endpoints", () => {
  it("answers 404 for another tenant's series and connection test, by its path or through one's own", async () => {
    for (const tenantId of [b.tenantId, a.tenantId]) {
      const workspace = `/tenants/${tenantId}/workspaces/${b.workspaceId}`;
      for (const [method, path] of [
        ["GET", `${workspace}/series?range=hour`],
        ["POST", `${workspace}/test-connection`],
      ] as const) {
        const answer = await a.tenantAdmin.request(method, path);
        expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
      }
    }
    const stats = await a.tenantAdmin.expect<Stats>(200, "GET", `/tenants/${a.tenantId}/stats`);
    expect(Object.keys(stats.activity)).not.toContain(b.workspaceId);
  });
});

describe("the console's HTTP", () => {
  it("serves the built console with a strict CSP, nothing inline, and its index for every console path", async () => {
    for (const path of ["/admin", "/admin/", "/admin/tenants/tn_x/workspaces/ws_y"]) {
      const page = await fetch(`${s.url}${path}`);
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
    const index = await (await fetch(`${s.url}/admin/`)).text();
    const script = /<script[^>]*src="([^"]+)"/.exec(index)?.[1] as string;
    const asset = await fetch(`${s.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("javascript");
    expect(asset.headers.get("cache-control")).toContain("immutable");
  });

  it("leaves the admin API's unknown paths to be 404s, not pages", async () => {
    const answer = await fetch(`${s.url}/admin/api/no-such-thing`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({ error: "not found" });
  });
});
