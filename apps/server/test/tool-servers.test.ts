import { randomBytes } from "node:crypto";
import { defaultAnswer } from "@resident/testkit/anthropic";
import { FakeMcp } from "@resident/testkit/mcp";
import { appMention, connectSlackWorkspace, type SlackWorkspace } from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

let s: InProcessService;
const authValue = `Bearer mcp-${randomBytes(12).toString("hex")}`;
const mcp = new FakeMcp({ auth: { header: "X-Api-Key", value: authValue } });
beforeAll(async () => {
  [s] = await Promise.all([startInProcessService(), mcp.start()]);
  s.secrets.push(authValue);
});
afterAll(() => Promise.all([s?.close(), mcp.close()]));

const serversPath = (ws: SlackWorkspace) => `/tenants/${ws.tenantId}/workspaces/${ws.workspaceId}/tool-servers`;
const attach = (ws: SlackWorkspace, body: unknown) => ws.tenantAdmin.request("POST", serversPath(ws), body);
const noSecretAnywhere = (text: string) => expect(text).not.toContain(authValue.slice(7));

describe("MCP servers through the admin API", () => {
  it("attaches a server once it lists its tools, lists it without its auth header, shows its tools, detaches", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const attached = await attach(ws, {
      name: "shop",
      url: mcp.url,
      authHeader: { name: "X-Api-Key", value: authValue },
    });

    expect(attached.status).toBe(201);
    expect(attached.body).toMatchObject({
      id: expect.stringMatching(/^mcp_/),
      name: "shop",
      url: mcp.url,
      authHeader: { name: "X-Api-Key" },
      tools: [
        { name: "lookup_order", description: "Looks an order up by its number" },
        { name: "open_ticket", description: "Opens a support ticket" },
      ],
    });
    const id = String(attached.body.id);
    const listed = await ws.tenantAdmin.expect<unknown[]>(200, "GET", serversPath(ws));
    expect(listed).toEqual([expect.objectContaining({ id, name: "shop", authHeader: { name: "X-Api-Key" } })]);
    const tools = await ws.tenantAdmin.expect(200, "GET", `${serversPath(ws)}/${id}/tools`);
    expect(tools).toMatchObject({ ok: true, tools: [{ name: "lookup_order" }, { name: "open_ticket" }] });
    noSecretAnywhere(JSON.stringify([attached.body, listed, tools]));

    await ws.tenantAdmin.expect(204, "DELETE", `${serversPath(ws)}/${id}`);
    expect(await ws.tenantAdmin.expect(200, "GET", serversPath(ws))).toEqual([]);
    expect((await ws.tenantAdmin.request("DELETE", `${serversPath(ws)}/${id}`)).status).toBe(404);
  });

  it("bad input: 400 naming the field, nothing stored, no secret in the answer or the log", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const header = { name: "X-Api-Key", value: authValue };
    const cases: [unknown, RegExp][] = [
      [{ name: "Shop!", url: mcp.url, authHeader: header }, /^name: /],
      [{ name: "shop", url: "not a url", authHeader: header }, /^url: /],
      [{ name: "shop", url: "file:///etc/passwd", authHeader: header }, /^url: must be an http or https URL/],
      [{ name: "shop", url: mcp.url, authHeader: { name: "Host", value: authValue } }, /^authHeader\.name: /],
      [{ name: "shop", url: mcp.url, authHeader: { value: `${authValue}\r\nX-Evil: 1` } }, /^authHeader\.value: /],
      [{ name: "shop", url: mcp.url, authHeader: header, extra: 1 }, /extra/],
    ];
    for (const [body, issue] of cases) {
      const response = await attach(ws, body);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect((response.body as { issues: string[] }).issues.join("; ")).toMatch(issue);
      noSecretAnywhere(JSON.stringify(response.body));
    }
    // Not an MCP server: 422, nothing stored.
    const wrong = await attach(ws, { name: "shop", url: `${s.url}/healthz`, authHeader: header });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({ reason: "unreachable" });
    // The right server, the wrong key: refused by the server, nothing stored.
    const refused = await attach(ws, { name: "shop", url: mcp.url, authHeader: { name: "X-Api-Key", value: "nope" } });
    expect(refused.status).toBe(422);
    expect(await ws.tenantAdmin.expect(200, "GET", serversPath(ws))).toEqual([]);

    // Another tenant's workspace does not exist for this admin.
    const other = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const foreign = await other.tenantAdmin.request("POST", serversPath(ws), { name: "shop", url: mcp.url });
    expect(foreign.status).toBe(404);
    noSecretAnywhere(s.logs.join("\n"));
  });

  it("a mention answered with a tool: the tool is called once with its key, counted in stats", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
    await ws.tenantAdmin.expect(201, "POST", serversPath(ws), {
      name: "shop",
      url: mcp.url,
      authHeader: { name: "X-Api-Key", value: authValue },
    });
    s.llm.answerWith((call) => {
      const results = call.messages.at(-1)?.toolResults ?? [];
      if (results.length > 0) return `Your order: ${results[0]?.text}`;
      return { text: "", toolUse: [{ name: "shop__lookup_order", input: { query: "A-7" } }] };
    });
    try {
      const mention = appMention(ws.bot, "where is order A-7?");
      await ws.send(mention);
      const replies = () => s.slack.postsInThread(mention.event.channel, mention.event.ts);
      // The answer streams into its one message: wait for the stream's end, not for the message to appear.
      await vi.waitFor(() => expect(replies().map((post) => post.text)).toEqual(["Your order: order A-7: shipped"]), {
        timeout: 30_000,
      });
      const calls = mcp.callsOf("lookup_order").filter((call) => call.arguments.query === "A-7");
      expect(calls).toHaveLength(1);
      expect(calls[0]?.idempotencyKey).toMatch(/^resident-/);
      expect(calls[0]?.presentedAuth).toBe(authValue);
      await vi.waitFor(
        async () => {
          const stats = await ws.tenantAdmin.expect<{ workspaces: Record<string, { toolCalls: number }> }>(
            200,
            "GET",
            `/tenants/${ws.tenantId}/stats`,
          );
          expect(stats.workspaces[ws.workspaceId]?.toolCalls).toBe(1);
        },
        { timeout: 10_000 },
      );
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      expect(metrics).toMatch(/resident_tool_calls_total\{platform="slack",outcome="ok",replayed="false"\} 1/);
      noSecretAnywhere(s.logs.join("\n"));
    } finally {
      s.llm.answerWith(defaultAnswer);
    }
  });
});
