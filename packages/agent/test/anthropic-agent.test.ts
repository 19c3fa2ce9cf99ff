import { LeaseLostError, RateLimitedError } from "@resident/core";
import { FakeServer } from "@resident/testkit";
import { defaultAnswer, FakeAnthropic } from "@resident/testkit/anthropic";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AgentError, AnthropicAgent, type AnthropicAgentOptions } from "../src/index.ts";
import { agentRequest, CapturingLogger } from "./fixtures.ts";

const apiKey = "sk-ant-test-4f9c2b7e-do-not-log";

describe("AnthropicAgent", () => {
  const fake = new FakeAnthropic({ apiKey });
  beforeAll(() => fake.start());
  afterAll(() => fake.close());
  afterEach(() => fake.clearFaults().answerWith(defaultAnswer));

  const agent = (options: Partial<AnthropicAgentOptions> = {}) =>
    new AnthropicAgent({ apiKey, baseUrl: fake.url, logger: new CapturingLogger(), ...options });

  /** Runs a request that must fail, and returns what it threw. */
  async function failure(run: Promise<unknown>): Promise<Error> {
    const outcome = await run.then(
      () => undefined,
      (error: Error) => error,
    );
    if (!outcome) throw new Error("expected the answer to fail");
    return outcome;
  }

  it("sends the workspace's prompt and model, the thread and the message, with the key", async () => {
    const request = agentRequest("And the door code?", {
      systemPrompt: "You are Ada, the office manager.",
      model: "claude-test-model",
      history: [
        { role: "user", text: "What is the wifi password?" },
        { role: "assistant", text: "It is on the fridge." },
      ],
    });

    const answer = await agent().answer(request);

    expect(answer.text).toBe("answer to: And the door code?");
    expect(fake.calls().at(-1)).toMatchObject({
      status: 200,
      apiKey,
      model: "claude-test-model",
      system: "You are Ada, the office manager.",
      maxTokens: 1024,
      messages: [
        { role: "user", text: "What is the wifi password?" },
        { role: "assistant", text: "It is on the fridge." },
        { role: "user", text: "And the door code?" },
      ],
    });
  });

  it("sends a conversation the API accepts, however the thread memory looks", async () => {
    const history = [
      { role: "assistant" as const, text: "an answer whose question fell out of the window" },
      { role: "user" as const, text: "first" },
      { role: "user" as const, text: "second" },
      { role: "assistant" as const, text: " " },
      { role: "assistant" as const, text: "reply" },
      { role: "user" as const, text: "never answered" },
    ];

    await agent().answer(agentRequest("now", { history }));

    expect(
      fake
        .calls()
        .at(-1)
        ?.messages.map(({ role, text }) => ({ role, text })),
    ).toEqual([
      { role: "user", text: "first\n\nsecond" },
      { role: "assistant", text: "reply" },
      { role: "user", text: "never answered\n\nnow" },
    ]);
  });

  it("uses the configured max_tokens", async () => {
    await agent({ maxTokens: 256 }).answer(agentRequest("hi"));
    expect(fake.calls().at(-1)?.maxTokens).toBe(256);
  });

  it("returns the text blocks joined and the token usage, with the prompt cache's reads and writes", async () => {
    fake.answerWith(() => ({
      text: ["Hello, ", "world."],
      usage: { input_tokens: 12, output_tokens: 5, cache_read_input_tokens: 300, cache_creation_input_tokens: 40 },
    }));
    const answer = await agent().answer(agentRequest("hi"));
    expect(answer).toEqual({
      text: "Hello, world.",
      usage: { inputTokens: 12, outputTokens: 5, cacheReadTokens: 300, cacheWriteTokens: 40 },
    });
  });

  it("marks the system prompt and the thread's history for the prompt cache, so the next message reads them from it", async () => {
    const systemPrompt = "You are Ada, the office manager of a company with a long handbook.";
    const history = [
      { role: "user" as const, text: "What is the wifi password?" },
      { role: "assistant" as const, text: "It is on the fridge." },
    ];
    const first = await agent().answer(agentRequest("And the door code?", { systemPrompt, history }));
    const sent = fake.calls().at(-1);
    expect(sent?.cacheBreakpoints).toEqual(["system", "messages.1"]);
    expect(sent?.request.body).toMatchObject({
      system: [{ type: "text", text: systemPrompt, cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: "What is the wifi password?" },
        {
          role: "assistant",
          content: [{ type: "text", text: "It is on the fridge.", cache_control: { type: "ephemeral" } }],
        },
        { role: "user", content: "And the door code?" },
      ],
    });
    // The first call writes the stable prefix (13 + 5 + 5 words), and pays the current message (4) in full.
    expect(first.usage).toMatchObject({ inputTokens: 4, cacheWriteTokens: 23, cacheReadTokens: 0 });

    const second = await agent().answer(agentRequest("And the alarm?", { systemPrompt, history }));
    expect(second.usage).toMatchObject({ inputTokens: 3, cacheWriteTokens: 0, cacheReadTokens: 23 });
  });

  it("sends no cache breakpoint on a message without history, beyond the system prompt", async () => {
    await agent().answer(agentRequest("hello there", { systemPrompt: "Be brief." }));
    expect(fake.calls().at(-1)?.cacheBreakpoints).toEqual(["system"]);
  });

  it("treats an empty answer as an error", async () => {
    fake.answerWith(() => "");
    const error = await failure(agent().answer(agentRequest("hi")));
    expect(error).toBeInstanceOf(AgentError);
    expect(error.message).toMatch(/returned no text/);
  });

  it("returns an answer cut off at max_tokens, with a warning", async () => {
    fake.answerWith(() => ({ text: "The first half of", stopReason: "max_tokens" }));
    const logger = new CapturingLogger();
    const answer = await agent({ logger }).answer(agentRequest("tell me everything"));
    expect(answer.text).toBe("The first half of");
    expect(logger.at("warn").map((line) => line.message)).toEqual(["the answer was cut off at max_tokens"]);
  });

  it("throws on a 500 after exactly one call: the SDK does not retry", async () => {
    fake.fail(500, 1);
    const before = fake.callCount();
    const error = await failure(agent().answer(agentRequest("hi")));
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ status: 500 });
    expect(error.message).toMatch(/^Anthropic answered 500/);
    expect(fake.callCount()).toBe(before + 1);
  });

  it("throws RateLimitedError with the server's wait on a 429, after exactly one call", async () => {
    fake.rateLimit(7, 1);
    const before = fake.callCount();
    const error = await failure(agent().answer(agentRequest("hi")));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterMs: 7_000 });
    expect(fake.callCount()).toBe(before + 1);
  });

  it("stops the call when the signal aborts, with the caller's reason", async () => {
    fake.hold(20_000, 1);
    const before = fake.callCount();
    const controller = new AbortController();
    const answering = failure(agent().answer(agentRequest("hi", { signal: controller.signal })));
    await expect.poll(() => fake.callCount()).toBe(before + 1);

    const reason = new LeaseLostError("lease on reply:ws-1:C1 was lost");
    controller.abort(reason);

    expect(await answering).toBe(reason);
    expect(fake.callCount()).toBe(before + 1);
  });

  it("makes no call when the signal is already aborted", async () => {
    const before = fake.callCount();
    const reason = new LeaseLostError("lost before we began");
    const error = await failure(agent().answer(agentRequest("hi", { signal: AbortSignal.abort(reason) })));
    expect(error).toBe(reason);
    expect(fake.callCount()).toBe(before);
  });

  it("gives up after its timeout, after exactly one call", async () => {
    fake.hold(20_000, 1);
    const before = fake.callCount();
    const error = await failure(agent({ timeoutMs: 200 }).answer(agentRequest("hi")));
    expect(error).toBeInstanceOf(AgentError);
    expect(error.message).toBe("Anthropic did not answer within 200 ms");
    expect(fake.callCount()).toBe(before + 1);
  });

  it("says which key to check when the key is refused", async () => {
    const wrongKey = "sk-ant-wrong-7d1e";
    const error = await failure(agent({ apiKey: wrongKey }).answer(agentRequest("hi")));
    expect(error).toMatchObject({ status: 401 });
    expect(error.message).toMatch(/401.*check ANTHROPIC_API_KEY/);
    expect(error.message).not.toContain(wrongKey);
  });

  it("says where it could not connect", async () => {
    const gone = await new FakeServer({}).start();
    const url = gone.url;
    await gone.close();
    const error = await failure(agent({ baseUrl: url }).answer(agentRequest("hi")));
    expect(error.message).toContain(`could not reach Anthropic at ${url}: `);
    expect(error.message).toContain("ECONNREFUSED");
  });

  it("never puts the API key in an error, even when the far end echoes it", async () => {
    const echoing = { type: "error", error: { type: "invalid_request_error", message: `bad key ${apiKey}` } };
    fake.server.fault("POST /v1/messages", { respond: { status: 400, body: echoing } }, 1);
    const echoed = await failure(agent().answer(agentRequest("hi")));
    expect(echoed.message).toBe("Anthropic answered 400: bad key [redacted]");

    fake.fail(503, 1);
    const failed = await failure(agent().answer(agentRequest("hi")));
    fake.rateLimit(1, 1);
    const limited = await failure(agent().answer(agentRequest("hi")));
    fake.hold(20_000, 1);
    const timedOut = await failure(agent({ timeoutMs: 100 }).answer(agentRequest("hi")));

    for (const error of [echoed, failed, limited, timedOut]) {
      expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(apiKey);
    }
  });
});
