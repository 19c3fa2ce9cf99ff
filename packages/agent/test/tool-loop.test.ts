import {
  type AgentRequest,
  LeaseLostError,
  MemoryClaimStore,
  type ToolCallReport,
  ToolJournal,
  type ToolServer,
} from "@resident/core";
import { type AnthropicCall, defaultAnswer, type FakeAnswer, FakeAnthropic } from "@resident/testkit/anthropic";
import { FakeMcp } from "@resident/testkit/mcp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AnthropicAgent, type AnthropicAgentOptions } from "../src/index.ts";
import { agentRequest, CapturingLogger } from "./fixtures.ts";

const apiKey = "sk-ant-test-tools";
const authValue = "Bearer mcp-secret-7d1f0c";

/** Asks for `tool` until a tool result is in the conversation, then answers with what the last result said. */
const askThenAnswer =
  (tool: string, query = "A-1001") =>
  (call: AnthropicCall): FakeAnswer => {
    const results = call.messages.at(-1)?.toolResults ?? [];
    if (results.length > 0) return { text: `done: ${results.map((r) => r.text).join(" | ")}` };
    return { text: "Let me look.", toolUse: [{ name: tool, input: { query } }] };
  };

describe("the tool-use loop", () => {
  const fake = new FakeAnthropic({ apiKey });
  const mcp = new FakeMcp({ auth: { header: "Authorization", value: authValue } });
  let server: ToolServer;
  beforeAll(async () => {
    await Promise.all([fake.start(), mcp.start()]);
    server = {
      id: "mcp_1",
      name: "shop",
      url: mcp.url,
      authHeader: { name: "Authorization", value: authValue },
      updatedAt: "t1",
    };
  });
  afterAll(() => Promise.all([fake.close(), mcp.close()]));
  afterEach(() => {
    fake.clearFaults().answerWith(defaultAnswer);
    fake.server.calls.length = 0;
    mcp.toolCalls.length = 0;
  });

  const agent = (options: Partial<AnthropicAgentOptions> = {}) =>
    new AnthropicAgent({ apiKey, baseUrl: fake.url, logger: new CapturingLogger(), ...options });

  /** A request whose journal lives in a shared store, as the reply worker makes it; attempts share the store. */
  function attempt(store: MemoryClaimStore, signal = new AbortController().signal) {
    const reports: ToolCallReport[] = [];
    const base = agentRequest("Where is my order A-1001?", { signal });
    const request: AgentRequest = {
      ...base,
      toolServers: [server],
      journal: new ToolJournal(store, base.event, 60_000),
      onToolCall: (report) => reports.push(report),
    };
    return { request, reports };
  }
  const sharedStore = () => new MemoryClaimStore();

  it("calls the MCP tool once, with its idempotency key and auth header, and answers from its result", async () => {
    fake.answerWith(askThenAnswer("shop__lookup_order"));
    const { request, reports } = attempt(sharedStore());

    const answer = await agent().answer(request);

    expect(answer.text).toBe("done: order A-1001: shipped");
    expect(mcp.toolCalls).toHaveLength(1);
    expect(mcp.toolCalls[0]).toMatchObject({ tool: "lookup_order", arguments: { query: "A-1001" } });
    expect(mcp.toolCalls[0]?.idempotencyKey).toMatch(/^resident-[0-9a-f]{40}$/);
    expect(mcp.toolCalls[0]?.presentedAuth).toBe(authValue);
    const [first, second] = fake.calls();
    expect(first?.tools).toEqual(["current_time", "shop__lookup_order", "shop__open_ticket"]);
    expect(first?.toolChoice).toBe("auto");
    expect(second?.messages.at(-1)?.toolResults).toEqual([
      {
        toolUseId: first?.messages.length === 1 ? expect.stringMatching(/^toolu_fake_/) : "",
        text: "order A-1001: shipped",
        isError: false,
      },
    ]);
    expect(answer.usage.outputTokens).toBeGreaterThan(0);
    expect(reports).toEqual([
      { tool: "shop__lookup_order", outcome: "ok", replayed: false, latencyMs: expect.any(Number) },
    ]);
  });

  /** Asks for one order lookup a turn until three results are in, then answers with them all. */
  const threeLookups =
    (afterFirst?: () => void) =>
    (call: AnthropicCall): FakeAnswer => {
      const results = call.messages.flatMap((message) => message.toolResults);
      if (results.length === 1) afterFirst?.();
      if (results.length === 3)
        return { text: `done: ${results.map((r) => `${r.text}${r.isError ? " (error)" : ""}`).join(" | ")}` };
      return {
        text: "Looking.",
        toolUse: [{ name: "shop__lookup_order", input: { query: `A-${results.length + 1}` } }],
      };
    };

  it("lists and makes three calls on one MCP session, which it ends when the answer ends", async () => {
    fake.answerWith(threeLookups());
    const opened = mcp.sessionsOpened;
    const ended = mcp.sessionsEnded;
    const { request, reports } = attempt(sharedStore());

    const answer = await agent().answer(request);

    expect(answer.text).toBe("done: order A-1: shipped | order A-2: shipped | order A-3: shipped");
    expect(mcp.toolCalls).toHaveLength(3);
    expect(new Set(mcp.toolCalls.map((call) => call.idempotencyKey)).size).toBe(3);
    expect(mcp.sessionsOpened - opened).toBe(1);
    expect(mcp.sessionsEnded - ended).toBe(1);
    expect(mcp.openSessions).toBe(0);
    expect(reports.map((report) => report.outcome)).toEqual(["ok", "ok", "ok"]);
  });

  it("a session the server ends mid-loop is opened afresh once, and the loop completes", async () => {
    fake.answerWith(threeLookups(() => void mcp.expireSessions()));
    const opened = mcp.sessionsOpened;
    const { request, reports } = attempt(sharedStore());

    const answer = await agent().answer(request);

    expect(answer.text).toBe("done: order A-1: shipped | order A-2: shipped | order A-3: shipped");
    expect(mcp.toolCalls.map((call) => call.arguments.query)).toEqual(["A-1", "A-2", "A-3"]);
    expect(mcp.sessionsOpened - opened).toBe(2);
    expect(mcp.openSessions).toBe(0);
    expect(reports.map((report) => report.outcome)).toEqual(["ok", "ok", "ok"]);
  });

  it("a retry after the last LLM call failed replays the step and its result: the tool is not called again", async () => {
    const store = sharedStore();
    fake.answerWith(askThenAnswer("shop__lookup_order"));
    // The LLM call after the tool fails: the attempt dies between the tool's effect and the answer.
    const failing = new FakeMcp({
      tools: [
        {
          name: "lookup_order",
          description: "d",
          answer: (q) => {
            fake.fail(500, 1);
            return `order ${q}: shipped`;
          },
        },
      ],
    });
    await failing.start();
    const first = attempt(store);
    first.request.toolServers = [{ ...server, id: "mcp_failing", url: failing.url, authHeader: undefined }];
    await expect(agent().answer(first.request)).rejects.toThrow(/Anthropic answered 500/);
    expect(failing.toolCalls).toHaveLength(1);

    const retry = attempt(store);
    retry.request.toolServers = first.request.toolServers;
    const answer = await agent().answer(retry.request);

    expect(answer.text).toBe("done: order A-1001: shipped");
    expect(failing.toolCalls).toHaveLength(1);
    // Step 0 and the tool were replayed: the retry made one LLM call, the last.
    expect(fake.callCount()).toBe(3);
    const [, failed, last] = fake.calls();
    expect(last?.messages.at(-2)?.toolUses).toEqual(failed?.messages.at(-2)?.toolUses);
    expect(retry.reports).toEqual([expect.objectContaining({ replayed: true, outcome: "ok" })]);
    await failing.close();
  });

  it("a call that times out is unknown: the model is told so, and a retry does not call it again", async () => {
    const store = sharedStore();
    fake.answerWith(askThenAnswer("shop__open_ticket", "printer on fire"));
    mcp.hold(3_000);
    const limits = { callTimeoutMs: 300 };

    const first = attempt(store);
    const answer = await agent({ toolLimits: limits }).answer(first.request);

    expect(mcp.callsOf("open_ticket")).toHaveLength(1);
    const told = fake.calls()[1]?.messages.at(-1)?.toolResults[0];
    expect(told?.isError).toBe(true);
    expect(told?.text).toMatch(/outcome of this call is unknown.*must not be repeated/);
    expect(answer.text).toMatch(/^done: The outcome of this call is unknown/);
    expect(first.reports).toEqual([expect.objectContaining({ outcome: "unknown", replayed: false })]);

    // A second attempt (the send failed, say) starts the loop over from its journal: no second ticket.
    const again = attempt(store);
    await agent({ toolLimits: limits }).answer(again.request);
    expect(mcp.callsOf("open_ticket")).toHaveLength(1);
    expect(again.reports).toEqual([expect.objectContaining({ outcome: "unknown", replayed: true })]);
  });

  it("an attempt that died mid-call leaves the call unknown for its successor, which does not repeat it", async () => {
    const store = sharedStore();
    fake.answerWith(askThenAnswer("shop__open_ticket", "printer on fire"));
    mcp.hold(5_000);
    const lease = new AbortController();
    const dying = attempt(store, lease.signal);
    const run = agent().answer(dying.request);
    await expect.poll(() => mcp.callsOf("open_ticket").length).toBe(1);
    lease.abort(new LeaseLostError("lease lost"));
    await expect(run).rejects.toBeInstanceOf(LeaseLostError);

    const successor = attempt(store);
    const answer = await agent().answer(successor.request);

    expect(mcp.callsOf("open_ticket")).toHaveLength(1);
    expect(answer.text).toMatch(/unknown \(an earlier attempt started this call and stopped before its outcome/);
    expect(successor.reports).toEqual([expect.objectContaining({ outcome: "unknown", replayed: true })]);
  });

  it("stops asking for tools after maxSteps: the last turn is asked with tool_choice none", async () => {
    fake.answerWith((call) =>
      call.toolChoice === "none" ? "final answer" : { text: "more", toolUse: [{ name: "current_time", input: {} }] },
    );
    const { request, reports } = attempt(sharedStore());

    const answer = await agent({ toolLimits: { maxSteps: 2 } }).answer(request);

    expect(answer.text).toBe("final answer");
    expect(fake.calls().map((call) => call.toolChoice)).toEqual(["auto", "auto", "none"]);
    expect(reports.map((report) => report.tool)).toEqual(["current_time", "current_time"]);
    expect(fake.calls()[1]?.messages.at(-1)?.toolResults[0]?.text).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it("once the time budget is spent, no further tool runs and the model must answer", async () => {
    fake.answerWith((call) =>
      call.toolChoice === "none"
        ? { text: "answered within budget" }
        : {
            text: "two things",
            toolUse: [
              { name: "shop__lookup_order", input: { query: "A-1" } },
              { name: "shop__open_ticket", input: { query: "late" } },
            ],
          },
    );
    mcp.hold(5_000);
    const { request, reports } = attempt(sharedStore());

    const answer = await agent({ toolLimits: { budgetMs: 400, callTimeoutMs: 10_000 } }).answer(request);

    expect(answer.text).toBe("answered within budget");
    // The first call was cut at the budget's end (unknown); the second never ran.
    expect(mcp.toolCalls.map((call) => call.tool)).toEqual(["lookup_order"]);
    expect(reports.map((report) => report.outcome)).toEqual(["unknown", "error"]);
    const results = fake.calls()[1]?.messages.at(-1)?.toolResults ?? [];
    expect(results[1]?.text).toBe("not run: the time for tools ran out before this call");
    expect(fake.calls()[1]?.toolChoice).toBe("none");
  });

  it("lists a server's tools once per version: a changed server is listed afresh", async () => {
    const before = mcp.listCalls;
    const shared = agent();
    for (let i = 0; i < 3; i++) await shared.answer(attempt(sharedStore()).request);
    expect(mcp.listCalls - before).toBe(1);

    server = { ...server, updatedAt: "t2" };
    await shared.answer(attempt(sharedStore()).request);
    expect(mcp.listCalls - before).toBe(2);
  });

  it("leaves out a server it cannot reach, and answers with the rest", async () => {
    const logger = new CapturingLogger();
    const { request } = attempt(sharedStore());
    request.toolServers = [{ ...server, id: "mcp_gone", name: "gone", url: "http://127.0.0.1:9/mcp" }];

    const answer = await agent({ logger }).answer(request);

    expect(answer.text).toBe("answer to: Where is my order A-1001?");
    expect(fake.calls()[0]?.tools).toEqual(["current_time"]);
    expect(JSON.stringify(logger.lines)).not.toContain("mcp-secret");
    expect(logger.at("warn").map((line) => line.message)).toContain(
      "MCP server left out of this answer: its tools could not be listed",
    );
  });

  it("offers the thread's messages as a built-in tool where the thread can be read, and reads it when asked", async () => {
    fake.answerWith(askThenAnswer("thread_messages"));
    let reads = 0;
    const { request, reports } = attempt(sharedStore());
    const answer = await agent().answer({
      ...request,
      readThread: async () => {
        reads++;
        return {
          status: "read",
          omitted: 0,
          messages: [{ id: "1", author: "U0ALICE", isBot: false, text: "Lunch on Friday?" }],
        };
      },
    });

    expect(fake.calls()[0]?.tools).toContain("thread_messages");
    expect(reads).toBe(1);
    expect(answer.text).toMatch(/^done: .*\[U0ALICE\]\nLunch on Friday\?/s);
    expect(reports.map((report) => report.tool)).toEqual(["thread_messages"]);

    fake.answerWith(() => "no tools needed");
    await agent().answer(attempt(sharedStore()).request);
    expect(fake.calls().at(-1)?.tools).not.toContain("thread_messages");
  });
});
