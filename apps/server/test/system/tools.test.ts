import type { AnthropicCall } from "@resident/testkit/anthropic";
import type { DeployedInstance } from "@resident/testkit/deployment";
import { FakeMcp } from "@resident/testkit/mcp";
import { appMention, twinOf } from "@resident/testkit/slack";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { countByTag, drained, fire, notExactly, question, slackAnswerTo, tagsIn } from "./support/messages.ts";

/*
 * An instance dies after a tool ran and before the answer was posted. Every message makes the agent call an MCP tool
 * (the fake MCP server, a real HTTP server on the SDK's transport, counts the calls per message); the turn after the
 * tool's result is slow the first time it is asked. Once an instance holds such a turn — its tool has run, its answer
 * is not written — it is killed with SIGKILL. A survivor takes the job over, replays the journaled step and the
 * tool's result, and answers: every message is answered once, and no tool is called twice. A call the victim had sent
 * when it died, and whose outcome it never recorded, is not sent again: its message's answer says the outcome is
 * unknown (tool-journal.ts), and the fake may never have seen it at all.
 */

const leaseSeconds = 4;
const lockSeconds = 4;
const slowTurnMs = 8_000;
const authValue = "Bearer system-test-mcp-key";

const mcp = new FakeMcp({ auth: { header: "Authorization", value: authValue } });
beforeAll(() => mcp.start());
afterAll(() => mcp.close());

const d = useDeployment({
  instances: 3,
  env: { CLAIM_LEASE_SECONDS: String(leaseSeconds), JOB_LOCK_SECONDS: String(lockSeconds), WORKER_CONCURRENCY: "4" },
});

const orderOf = (tag: string) => tag.slice(1);
const toolResultsOf = (call: AnthropicCall) => call.messages.at(-1)?.toolResults ?? [];
/** The tag of the question a call is about: its last user turn with text (a tool result's turn has none). */
const tagOf = (call: AnthropicCall) =>
  tagsIn(call.messages.filter((m) => m.role === "user" && m.text !== "").at(-1)?.text ?? "").at(-1) ?? "";

it("kill -9 after a tool ran, before the answer was posted: answered once, no tool called twice", async () => {
  const slack = await d().connectSlack();
  await slack.tenantAdmin.expect(
    201,
    "POST",
    `/tenants/${slack.tenantId}/workspaces/${slack.workspaceId}/tool-servers`,
    {
      name: "shop",
      url: mcp.url,
      authHeader: { value: authValue },
    },
  );
  const slowed = new Set<string>();
  d().llm.answerWith((call) => {
    const tag = tagOf(call);
    const results = toolResultsOf(call);
    // The order number is the tag without its '#': the reply then carries the tag once, and the tool's answer too.
    if (results.length === 0)
      return { text: "", toolUse: [{ name: "shop__lookup_order", input: { query: orderOf(tag) } }] };
    const first = !slowed.has(tag);
    slowed.add(tag);
    return { text: `answer to: ${tag} (${results[0]?.text})`, delayMs: first ? slowTurnMs : 0 };
  });

  const messages = Array.from({ length: 6 }, () => question("tl", "where is my order?"));
  const tags = new Set(messages.map((m) => m.tag));
  const deliveries = messages.flatMap(({ text }) => {
    const mention = appMention(slack.bot, text);
    return [() => slack.send(mention), () => slack.send(twinOf(mention))];
  });
  const fired = await fire(deliveries, 12);
  expect(Object.fromEntries(fired.statuses)).toEqual({ 200: deliveries.length });

  // The victim: an instance waiting on the turn after a tool's result (its tool has run, its answer is unwritten).
  const afterTool = (instance: DeployedInstance) =>
    d()
      .llm.calls()
      .filter(
        (call) => call.status === undefined && toolResultsOf(call).length > 0 && d().instanceOf(call) === instance,
      );
  const victim = await vi.waitFor(
    () => {
      const busiest = [...d().instances].sort((a, b) => afterTool(b).length - afterTool(a).length)[0];
      if (!busiest || afterTool(busiest).length === 0) throw new Error("no instance waits on a turn after a tool yet");
      return busiest;
    },
    { timeout: 30_000, interval: 20 },
  );
  const caught = afterTool(victim).map((call) => tagOf(call));
  for (const tag of caught)
    expect(mcp.callsOf("lookup_order").filter((c) => c.arguments.query === orderOf(tag))).toHaveLength(1);
  await victim.kill();
  const killedAt = Date.now();

  // Bound: the dead job's lock lapses and a survivor's stalled check takes it (2 locks), its reply claim lapses
  // (lease), the queue's backoff meanwhile (7 s), then the answer, plus a margin for a loaded machine.
  const boundMs = 2 * lockSeconds * 1000 + leaseSeconds * 1000 + 7_000 + slowTurnMs + 20_000;
  await vi.waitFor(
    () => {
      const answered = countByTag(d(), tags).replies;
      const missing = [...tags].filter((t) => !answered.has(t));
      if (missing.length > 0) throw new Error(`${missing.length} messages unanswered: ${missing.slice(0, 3)}`);
    },
    { timeout: boundMs, interval: 100 },
  );
  const recoveredInMs = Date.now() - killedAt;
  await drained(d(), 60_000);
  await new Promise((resolve) => setTimeout(resolve, 2_000));

  const { replies, strays } = countByTag(d(), tags);
  const toolCalls = new Map<string, number>();
  const keys = new Map<string, Set<string>>();
  for (const call of mcp.callsOf("lookup_order")) {
    const tag = `#${String(call.arguments.query)}`;
    toolCalls.set(tag, (toolCalls.get(tag) ?? 0) + 1);
    keys.set(tag, (keys.get(tag) ?? new Set()).add(call.idempotencyKey ?? ""));
  }
  // The turn that asked for the tool, per message: replayed from the journal by the taker, never asked again.
  const firstTurns = new Map<string, number>();
  const askedBy = new Map<string, DeployedInstance | undefined>();
  for (const call of d()
    .llm.calls()
    .filter((c) => toolResultsOf(c).length === 0)) {
    const tag = tagOf(call);
    firstTurns.set(tag, (firstTurns.get(tag) ?? 0) + 1);
    askedBy.set(tag, d().instanceOf(call));
  }
  // Calls the victim sent and died on before the fake ran them: their outcome is unknown, and nobody sent them again.
  const diedMidCall = [...tags].filter((tag) => !toolCalls.has(tag));
  // The survivors read the dead instance's tool results back from the journal instead of calling again.
  const survivors = d().instances.filter((instance) => instance !== victim);
  const replayed = (await Promise.all(survivors.map((instance) => instance.metrics()))).reduce(
    (sum, samples) => sum + samples.sum("resident_tool_calls_total", { replayed: "true" }),
    0,
  );
  report("tools-crash", {
    messages: tags.size,
    deliveries: deliveries.length,
    victim: victim.name,
    caughtAfterTool: caught.length,
    diedMidCall: diedMidCall.length,
    replies: [...replies.values()].reduce((a, b) => a + b, 0),
    toolCalls: [...toolCalls.values()].reduce((a, b) => a + b, 0),
    llmCalls: d().llm.callCount(),
    replayedBySurvivors: replayed,
    recoveredInMs,
    boundMs,
  });

  expect(caught.length).toBeGreaterThan(0);
  expect(replayed, "tool results replayed by the survivors").toBeGreaterThanOrEqual(caught.length);
  expect(notExactly(tags, replies), "messages not answered exactly once").toEqual([]);
  expect(strays).toEqual([]);
  expect(notExactly(toolCalls.keys(), toolCalls), "tools called more than once for a message").toEqual([]);
  expect(notExactly(tags, firstTurns), "tool-asking turns not asked exactly once per message").toEqual([]);
  for (const tag of diedMidCall) {
    expect(askedBy.get(tag), `${tag}'s tool never ran: only the victim's death mid-call may cause that`).toBe(victim);
    expect(slackAnswerTo(d(), tag), `${tag}'s answer without its tool`).toContain(
      "The outcome of this call is unknown",
    );
  }
  for (const tag of toolCalls.keys()) expect(keys.get(tag)?.size, `one idempotency key for ${tag}`).toBe(1);
  expect(new Set([...keys.values()].flatMap((set) => [...set])).size).toBe(toolCalls.size);
  // The caught messages' answers carry the result the dead instance's tool call returned.
  for (const tag of caught) expect(slackAnswerTo(d(), tag)).toContain(`order ${orderOf(tag)}: shipped`);
});
