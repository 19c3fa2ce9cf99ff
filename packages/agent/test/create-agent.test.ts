import { FakeAnthropic } from "@resident/testkit/anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnthropicAgent, createAgent, EchoAgent } from "../src/index.ts";
import { agentRequest, CapturingLogger } from "./fixtures.ts";

const apiKey = "sk-ant-test-91aa30c2-do-not-log";

describe("createAgent", () => {
  const fake = new FakeAnthropic({ apiKey });
  beforeAll(() => fake.start());
  afterAll(() => fake.close());

  it.each([undefined, "", "  "])("warns loudly and answers offline when the key is %j", (missing) => {
    const logger = new CapturingLogger();
    const agent = createAgent({ apiKey: missing, logger });

    expect(agent).toBeInstanceOf(EchoAgent);
    const [warning, ...others] = logger.at("warn");
    expect(others).toEqual([]);
    expect(warning?.message).toMatch(/ANTHROPIC_API_KEY is not set: answering OFFLINE/);
    expect(warning?.message).toMatch(/Set ANTHROPIC_API_KEY/);
  });

  it("answers with Anthropic at the given base URL when a key is given, without logging the key", async () => {
    const logger = new CapturingLogger();
    const agent = createAgent({ apiKey, baseUrl: fake.url, maxTokens: 300, logger });

    expect(agent).toBeInstanceOf(AnthropicAgent);
    expect((await agent.answer(agentRequest("hi"))).text).toBe("answer to: hi");
    expect(fake.calls().at(-1)).toMatchObject({ apiKey, maxTokens: 300 });
    expect(logger.at("warn")).toEqual([]);
    expect(logger.at("info")).toEqual([
      { level: "info", fields: { agent: "anthropic", endpoint: fake.url }, message: "answering with Anthropic" },
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain(apiKey);
  });
});

describe("EchoAgent", () => {
  it("echoes the message, marked as offline, for no tokens", async () => {
    const answer = await new EchoAgent().answer(agentRequest("where is the stapler?"));
    expect(answer).toEqual({
      text: "(offline echo) You said: where is the stapler?",
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });

  it("stops when the signal is aborted", async () => {
    const reason = new Error("lease lost");
    await expect(new EchoAgent().answer(agentRequest("hi", { signal: AbortSignal.abort(reason) }))).rejects.toBe(
      reason,
    );
  });
});
