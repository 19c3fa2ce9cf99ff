import { AdminApi } from "@resident/admin-api";
import { connectSlackWorkspace, type SlackWorkspace } from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InProcessService } from "./support/in-process-service.ts";
import { startTwoInstances, type TwoInstances } from "./support/two-instances.ts";

interface TokenView {
  tokenId: string;
  name: string;
  start: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

let deployment: TwoInstances;
let one: InProcessService;
let two: InProcessService;
let a: SlackWorkspace;
beforeAll(async () => {
  deployment = await startTwoInstances();
  ({ one, two } = deployment);
  a = await connectSlackWorkspace(one.url, one.operator, one.slack);
});
afterAll(() => deployment?.close());

describe("admin tokens: issue, list, revoke", () => {
  it("lists a tenant's tokens by name without their secrets, and a revoked one is refused by every instance within a second", async () => {
    const path = `/tenants/${a.tenantId}/tokens`;
    const issued = await one.operator.expect<TokenView & { token: string }>(201, "POST", path, { name: "CI deploy" });
    expect(issued).toMatchObject({ name: "CI deploy", start: issued.token.slice(0, 12), expiresAt: null });
    const onOne = new AdminApi(issued.token, one.url);
    const onTwo = new AdminApi(issued.token, two.url);
    expect((await onOne.request("GET", "/me")).status).toBe(200);
    expect((await onTwo.request("GET", "/me")).status).toBe(200);

    const listed = await a.tenantAdmin.as(a.tenantToken).expect<TokenView[]>(200, "GET", path);
    expect(listed.map((t) => t.name)).toContain("CI deploy");
    expect(listed.find((t) => t.tokenId === issued.tokenId)?.lastUsedAt).toEqual(expect.any(String));
    const text = JSON.stringify(listed);
    expect(text).not.toContain(issued.token);
    expect(text).not.toContain(a.tenantToken);

    const revokedAt = Date.now();
    expect((await new AdminApi(a.tenantToken, two.url).request("DELETE", `${path}/${issued.tokenId}`)).status).toBe(
      204,
    );
    const refused = await Promise.all(
      [onOne, onTwo].map(async (client) => {
        for (;;) {
          const { status } = await client.request("GET", "/me");
          if (status === 401) return Date.now() - revokedAt;
          if (Date.now() - revokedAt > 5_000) return Number.POSITIVE_INFINITY;
        }
      }),
    );
    console.log(`[tokens] revoked token refused after ms: one=${refused[0]} two=${refused[1]}`);
    for (const ms of refused) expect(ms).toBeLessThan(1_000);
    expect((await one.operator.request("DELETE", `${path}/${issued.tokenId}`)).status).toBe(404);

    const audit = await one.operator.expect<{ action: string; target: string }[]>(
      200,
      "GET",
      `/tenants/${a.tenantId}/audit`,
    );
    expect(audit.filter((e) => e.target === issued.tokenId).map((e) => e.action)).toEqual([
      "token.revoke",
      "token.issue",
    ]);
  });

  it("lets a tenant admin issue tokens only when the operator allows it for that tenant", async () => {
    const path = `/tenants/${a.tenantId}/tokens`;
    const admin = new AdminApi(a.tenantToken, one.url);
    expect((await admin.request("POST", path)).status).toBe(403);
    expect((await admin.request("PATCH", `/tenants/${a.tenantId}`, { adminsMayIssueTokens: true })).status).toBe(403);
    const allowed = await two.operator.expect<{ adminsMayIssueTokens: boolean }>(
      200,
      "PATCH",
      `/tenants/${a.tenantId}`,
      {
        adminsMayIssueTokens: true,
      },
    );
    expect(allowed.adminsMayIssueTokens).toBe(true);
    expect(await admin.expect(200, "GET", "/me")).toMatchObject({ mayIssueTokens: true });
    const minted = await admin.expect<{ token: string }>(201, "POST", path, { name: "second admin" });
    expect((await new AdminApi(minted.token, two.url).request("GET", "/me")).status).toBe(200);
    await one.operator.expect(200, "PATCH", `/tenants/${a.tenantId}`, { adminsMayIssueTokens: false });
    expect((await admin.request("POST", path)).status).toBe(403);
  });

  it("still issues a token for DESIGN.md's bodiless POST, and refuses an expiry in the past", async () => {
    const path = `/tenants/${a.tenantId}/tokens`;
    const bare = await fetch(`${one.url}/admin/api${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${one.operator.token}` },
    });
    expect(bare.status).toBe(201);
    expect((await bare.json()).token).toMatch(/^rsd_/);
    expect((await one.operator.request("POST", path, { expiresAt: "2001-01-01T00:00:00Z" })).status).toBe(400);
  });
});

describe("the audit log over HTTP", () => {
  it("answers newest first by id as a number, past id 10 and past 200 entries, page by page with ?before=", async () => {
    const tenant = await one.operator.tenantWithAdmin("busy");
    for (let i = 0; i < 230; i++) await one.operator.expect(201, "POST", `/tenants/${tenant.tenantId}/tokens`);
    const ids: number[] = [];
    let before = "";
    for (let page = 0; page < 10; page++) {
      const entries = await one.operator.expect<{ id: string }[]>(
        200,
        "GET",
        `/tenants/${tenant.tenantId}/audit${before && `?before=${before}`}`,
      );
      if (entries.length === 0) break;
      ids.push(...entries.map((entry) => Number(entry.id)));
      before = entries.at(-1)?.id ?? "";
    }
    console.log(`[audit] entries=${ids.length} newest=${ids[0]} oldest=${ids.at(-1)}`);
    expect(ids).toHaveLength(232);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    expect(new Set(ids.map((id) => String(id).length)).size).toBeGreaterThan(1);
    expect((await one.operator.request("GET", `/tenants/${tenant.tenantId}/audit?before=x`)).status).toBe(400);
  });
});

describe("control characters in text fields", () => {
  it("answers 400 naming the field, and stores nothing, for NUL and other controls in every text field", async () => {
    const ws = `/tenants/${a.tenantId}/workspaces/${a.workspaceId}`;
    const cases: [string, string, unknown, string][] = [
      ["POST", "/tenants", { name: "nul\u0000byte" }, "name"],
      ["POST", "/tenants", { name: "bell\u0007" }, "name"],
      ["PATCH", `/tenants/${a.tenantId}`, { name: "nul\u0000byte" }, "name"],
      ["PATCH", ws, { name: "nul\u0000byte" }, "name"],
      ["PATCH", ws, { settings: { systemPrompt: "be\u0000brief" } }, "settings.systemPrompt"],
      ["PATCH", ws, { settings: { model: "claude\u0000" } }, "settings.model"],
      ["PATCH", ws, { credentials: { signingSecret: "x\u0000", botToken: "xoxb-1" } }, "credentials"],
      [
        "POST",
        `/tenants/${a.tenantId}/workspaces`,
        { platform: "slack", name: "n\u0000", credentials: { botToken: "x" } },
        "name",
      ],
      ["POST", `/tenants/${a.tenantId}/tokens`, { name: "nul\u0000byte" }, "name"],
    ];
    const before = await one.operator.expect(200, "GET", ws);
    for (const [method, path, body, field] of cases) {
      const answer = await one.operator.request<{ issues?: string[] }>(method, path, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 400 });
      expect(answer.body.issues?.join(" ")).toContain(field);
    }
    expect(await one.operator.expect(200, "GET", ws)).toEqual(before);
    const multiline = await one.operator.request("PATCH", ws, { settings: { systemPrompt: "line one\n\tline two" } });
    expect(multiline.status).toBe(200);
  });
});
