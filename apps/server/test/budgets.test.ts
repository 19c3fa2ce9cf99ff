import { deliver, settle } from "@resident/testkit";
import {
  appMention,
  connectSlackWorkspace,
  type SlackWorkspace,
  signSlackRequest,
  twinOf,
} from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { InProcessService } from "./support/in-process-service.ts";
import { startTwoInstances, type TwoInstances } from "./support/two-instances.ts";

let deployment: TwoInstances;
let one: InProcessService;
let two: InProcessService;
beforeAll(async () => {
  deployment = await startTwoInstances();
  ({ one, two } = deployment);
}, 60_000);
afterAll(() => deployment?.close());

const waitLong = { timeout: 30_000, interval: 100 };
const budgetReply = "today's AI usage limit has been reached";
const llmCallsFor = (text: string) => one.llm.calls().filter((call) => call.messages.at(-1)?.text === text);
const repliesTo = (mention: ReturnType<typeof appMention>) =>
  one.slack.postsInThread(mention.event.channel, mention.event.ts);

interface BudgetView {
  tenant: { budget: Record<string, number>; usage: { day: string; tokens: number }[] };
  workspaces: { workspaceId: string; budget: Record<string, number>; usage: { day: string; tokens: number }[] }[];
}

/** Sends a mention to both instances, twice each, and its message.channels twin: five deliveries of one message. */
async function storm(ws: SlackWorkspace, mention: ReturnType<typeof appMention>) {
  const viaTwo = (body: unknown) =>
    deliver(ws.webhookUrl.replace(one.url, two.url), signSlackRequest({ signingSecret: ws.signingSecret, body }));
  const deliveries = [ws.send(mention), ws.send(mention), ws.send(twinOf(mention)), viaTwo(mention), viaTwo(mention)];
  expect((await Promise.all(deliveries)).map((d) => d.status)).toEqual([200, 200, 200, 200, 200]);
}

describe("budgets, held cluster-wide before the LLM is called", () => {
  it("a tenant over its token budget: one budget reply per message and no LLM call; another tenant is unaffected", async () => {
    const poor = await connectSlackWorkspace(one.url, one.operator, one.slack);
    const rich = await connectSlackWorkspace(one.url, one.operator, one.slack);
    await one.operator.expect(200, "PUT", `/tenants/${poor.tenantId}/budget`, { tokensPerDay: 5 });

    // The first answer is within budget and spends more than all of it.
    const first = appMention(poor.bot, "what is on the menu today?");
    await storm(poor, first);
    await vi.waitFor(() => expect(repliesTo(first)).toHaveLength(1), waitLong);
    await vi.waitFor(async () => {
      const view = await poor.tenantAdmin.expect<BudgetView>(200, "GET", `/tenants/${poor.tenantId}/budgets`);
      expect(view.tenant.usage.at(-1)?.tokens).toBeGreaterThanOrEqual(5);
    }, waitLong);

    const questions = ["and tomorrow?", "is there dessert?", "who cooks?"];
    const mentions = questions.map((q) => appMention(poor.bot, q));
    await Promise.all(mentions.map((mention) => storm(poor, mention)));
    const other = appMention(rich.bot, "what is on the menu today?");
    await storm(rich, other);
    for (const mention of [...mentions, other]) {
      await vi.waitFor(() => expect(repliesTo(mention)).toHaveLength(1), waitLong);
    }
    await settle(2_000);

    const counts = mentions.map((mention, i) => ({
      replies: repliesTo(mention).length,
      llm: llmCallsFor(questions[i] as string).length,
    }));
    console.log(
      `[budget] over-budget messages: ${JSON.stringify(counts)}; other tenant replies=${repliesTo(other).length} ` +
        `llm=${one.llm.calls().filter((c) => c.messages.at(-1)?.text === "what is on the menu today?").length}`,
    );
    for (const mention of mentions) {
      expect(repliesTo(mention)).toHaveLength(1);
      expect(repliesTo(mention)[0]?.text).toContain(budgetReply);
    }
    for (const question of questions) expect(llmCallsFor(question)).toHaveLength(0);
    expect(repliesTo(other)).toHaveLength(1);
    expect(repliesTo(other)[0]?.text).toBe("answer to: what is on the menu today?");
    // One LLM call for the poor tenant's first message, one for the other tenant's: nothing else.
    expect(llmCallsFor("what is on the menu today?")).toHaveLength(2);

    // The admin sees it: the stats count the budget replies, and each instance's metrics those it sent.
    await vi.waitFor(async () => {
      const stats = await poor.tenantAdmin.expect<{ workspaces: Record<string, { overBudget: number }> }>(
        200,
        "GET",
        `/tenants/${poor.tenantId}/stats`,
      );
      expect(stats.workspaces[poor.workspaceId]?.overBudget).toBe(3);
    }, waitLong);
    const exceeded = await Promise.all(
      [one, two].map(async (instance) => {
        const text = await (await fetch(`${instance.url}/metrics`)).text();
        const line = text
          .split("\n")
          .find((l) => l.startsWith('resident_budget_exceeded_total{platform="slack",limit="tokensPerDay"}'));
        return Number(line?.split(" ").at(-1) ?? 0);
      }),
    );
    expect(exceeded.reduce((sum, n) => sum + n, 0)).toBe(3);
  }, 120_000);

  it("answers per minute: the workspace's limit holds across both instances", async () => {
    const ws = await connectSlackWorkspace(one.url, one.operator, one.slack);
    await ws.tenantAdmin.expect(200, "PUT", `/tenants/${ws.tenantId}/workspaces/${ws.workspaceId}/budget`, {
      answersPerMinute: 2,
    });
    const mentions = ["one?", "two?", "three?", "four?"].map((q) => appMention(ws.bot, q));
    await Promise.all(mentions.map((mention) => storm(ws, mention)));
    for (const mention of mentions) await vi.waitFor(() => expect(repliesTo(mention)).toHaveLength(1), waitLong);
    await settle(1_500);
    const texts = mentions.map((mention) => repliesTo(mention)[0]?.text ?? "");
    console.log(`[answers per minute] replies=${mentions.map((m) => repliesTo(m).length).join(",")}`);
    for (const mention of mentions) expect(repliesTo(mention)).toHaveLength(1);
    expect(texts.filter((text) => text.startsWith("answer to:"))).toHaveLength(2);
    expect(texts.filter((text) => text.includes("too many questions"))).toHaveLength(2);
    const llm = ["one?", "two?", "three?", "four?"].reduce((sum, q) => sum + llmCallsFor(q).length, 0);
    expect(llm).toBe(2);
  }, 120_000);
});

describe("the budget admin API", () => {
  it("a tenant's budget is the operator's, a workspace's its admins'; bad input is 400 with the field, and nothing changes", async () => {
    const ws = await connectSlackWorkspace(one.url, one.operator, one.slack);
    const path = `/tenants/${ws.tenantId}`;
    await one.operator.expect(200, "PUT", `${path}/budget`, { tokensPerDay: 10_000, answersPerMinute: 30 });

    const refused = await ws.tenantAdmin.request("PUT", `${path}/budget`, { tokensPerDay: 1_000_000 });
    expect(refused.status).toBe(403);
    for (const body of [{ tokensPerDay: -5 }, { tokensPerDay: 1.5 }, { answersPerMinute: "many" }, { perHour: 3 }]) {
      const bad = await two.operator.request<{ issues: string[] }>("PUT", `${path}/budget`, body);
      expect(bad.status).toBe(400);
      expect(bad.body.issues.join(" ")).toMatch(/tokensPerDay|answersPerMinute|perHour/);
    }
    const badWorkspace = await ws.tenantAdmin.request<{ issues: string[] }>(
      "PUT",
      `${path}/workspaces/${ws.workspaceId}/budget`,
      { answersPerMinute: 0 },
    );
    expect(badWorkspace.status).toBe(400);
    expect(badWorkspace.body.issues.join(" ")).toContain("answersPerMinute");
    expect((await ws.tenantAdmin.request("PUT", `${path}/workspaces/ws_unknown/budget`, {})).status).toBe(404);
    expect((await one.operator.request("PUT", "/tenants/tn_unknown/budget", {})).status).toBe(404);

    await ws.tenantAdmin.expect(200, "PUT", `${path}/workspaces/${ws.workspaceId}/budget`, { tokensPerDay: 500 });
    const view = await ws.tenantAdmin.expect<BudgetView>(200, "GET", `${path}/budgets`);
    expect(view.tenant.budget).toEqual({ tokensPerDay: 10_000, answersPerMinute: 30 });
    expect(view.workspaces).toEqual([
      { workspaceId: ws.workspaceId, budget: { tokensPerDay: 500 }, usage: expect.any(Array) },
    ]);
    expect(view.tenant.usage).toHaveLength(7);

    const audit = await one.operator.expect<{ action: string; detail: { fields?: string[] } }[]>(
      200,
      "GET",
      `${path}/audit`,
    );
    expect(audit.filter((entry) => entry.action.endsWith(".budget")).map((entry) => entry.action)).toEqual([
      "workspace.budget",
      "tenant.budget",
    ]);
  });
});
