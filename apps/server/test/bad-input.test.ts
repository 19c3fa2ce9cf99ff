import { deliver, settle } from "@resident/testkit";
import { appMention, connectSlackWorkspace, type SlackWorkspace, signSlackRequest } from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

let s: InProcessService;
let ws: SlackWorkspace;
beforeAll(async () => {
  s = await startInProcessService();
  ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
});
afterAll(() => s?.close());

const now = () => Math.floor(Date.now() / 1000);

describe("bad input gets a clear answer and changes nothing", () => {
  it("refuses every bad delivery of a message, then answers its genuine delivery once", async () => {
    const question = "is anything claimed?";
    const mention = appMention(ws.bot, question);
    const body = JSON.stringify(mention);
    const genuine = signSlackRequest({ signingSecret: ws.signingSecret, body });
    const { "x-slack-signature": _dropped, ...unsignedHeaders } = genuine.headers;
    const cases: [string, Parameters<typeof deliver>[1], number, string?][] = [
      ["wrong signature", signSlackRequest({ signingSecret: "not-the-secret", body }), 401],
      ["missing signature", { ...genuine, headers: unsignedHeaders }, 401],
      ["stale timestamp", signSlackRequest({ signingSecret: ws.signingSecret, body, timestamp: now() - 301 }), 401],
      // A minute past the window's edge: the cases are signed before they are sent, and a busy machine takes seconds.
      ["future timestamp", signSlackRequest({ signingSecret: ws.signingSecret, body, timestamp: now() + 360 }), 401],
      ["malformed JSON", signSlackRequest({ signingSecret: ws.signingSecret, body: `${body.slice(0, -1)},` }), 400],
      [
        "oversized body",
        signSlackRequest({
          signingSecret: ws.signingSecret,
          body: `${body.slice(0, -1)},"pad":"${"x".repeat(1_100_000)}"}`,
        }),
        413,
      ],
      ["unknown workspace", genuine, 404, `${s.url}/slack/events/ws_doesnotexist`],
      ["a workspace id of no workspace's shape", genuine, 404, `${s.url}/slack/events/${ws.workspaceId}.x`],
      ["another platform's path", genuine, 404, `${s.url}/chatwork/webhook/${ws.workspaceId}`],
    ];
    for (const [name, request, status, url] of cases) {
      const answer = await deliver(url ?? ws.webhookUrl, request);
      expect({ name, status: answer.status }).toEqual({ name, status });
      expect(JSON.parse(answer.body)).toHaveProperty("error");
    }

    await settle(1_500);
    expect(await s.service.runtime.shared.queue.depth()).toBe(0);
    expect(s.slack.posts().filter((p) => p.channel === mention.event.channel)).toEqual([]);
    expect(s.llm.calls().filter((c) => c.messages.at(-1)?.text === question)).toEqual([]);
    const { workspaces } = await ws.tenantAdmin.expect<{ workspaces: Record<string, unknown> }>(
      200,
      "GET",
      `/tenants/${ws.tenantId}/stats`,
    );
    expect(workspaces[ws.workspaceId]).toBeUndefined();

    // Nothing was claimed under the message's event id: its genuine delivery is not taken for a duplicate.
    expect((await deliver(ws.webhookUrl, genuine)).status).toBe(200);
    await vi.waitFor(() => expect(s.slack.posts().filter((p) => p.channel === mention.event.channel)).toHaveLength(1), {
      timeout: 20_000,
      interval: 50,
    });
    await settle(1_000);
    expect(s.llm.calls().filter((c) => c.messages.at(-1)?.text === question)).toHaveLength(1);
  });

  it("keeps every secret out of every log line and every admin API response", async () => {
    const fresh = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const base = `/tenants/${fresh.tenantId}/workspaces`;
    const responses: unknown[] = [
      await fresh.tenantAdmin.request("GET", base),
      await fresh.tenantAdmin.request("GET", `${base}/${fresh.workspaceId}`),
      await fresh.tenantAdmin.request("PATCH", `${base}/${fresh.workspaceId}`, { name: "Renamed" }),
      await fresh.tenantAdmin.request("PATCH", `${base}/${fresh.workspaceId}`, {
        credentials: { signingSecret: fresh.signingSecret, botToken: fresh.bot.token },
      }),
      await fresh.tenantAdmin.request("POST", base, {
        platform: "slack",
        name: "bad token",
        credentials: { signingSecret: fresh.signingSecret, botToken: "xoxb-not-installed-anywhere" },
      }),
      await fresh.tenantAdmin.request("GET", `/tenants/${fresh.tenantId}/stats`),
      await fresh.tenantAdmin.request("GET", `/tenants/${fresh.tenantId}/audit`),
      await s.operator.request("GET", "/tenants"),
    ];
    // Exercise the paths that log: a refused signature, a failing LLM and a failing post.
    await fresh.send(appMention(fresh.bot, "x"), { timestamp: now() - 1_000 });
    s.llm.fail(500, 1);
    s.slack.fail(500, { times: 1 });
    const mention = appMention(fresh.bot, "log everything");
    await fresh.send(mention);
    await vi.waitFor(() => expect(s.slack.posts().filter((p) => p.channel === mention.event.channel)).toHaveLength(1), {
      timeout: 40_000,
      interval: 50,
    });

    const secrets = [...s.secrets, fresh.signingSecret, fresh.bot.token, fresh.tenantToken, "xoxb-not-installed"];
    const seen = [JSON.stringify(responses), ...s.logs];
    for (const secret of secrets) expect(seen.filter((text) => text.includes(secret))).toEqual([]);
    expect(responses).toHaveLength(8);
    expect(s.logs.some((line) => line.includes("answer failed"))).toBe(true);
  }, 60_000);
});
