import { FakeAnthropic } from "@resident/testkit/anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnthropicAgent } from "../src/index.ts";
import { agentRequest, CapturingLogger } from "./fixtures.ts";

const apiKey = "sk-ant-test-thread-context";

describe("AnthropicAgent: the thread it was called into", () => {
  const fake = new FakeAnthropic({ apiKey });
  beforeAll(() => fake.start());
  afterAll(() => fake.close());
  const agent = () => new AnthropicAgent({ apiKey, baseUrl: fake.url, logger: new CapturingLogger() });

  it("sends the thread's earlier messages after the cached system prompt", async () => {
    await agent().answer({
      ...agentRequest("what did we decide?", { systemPrompt: "You are Ada." }),
      thread: {
        status: "read",
        omitted: 2,
        messages: [
          { id: "1", author: "U0ALICE", isBot: false, text: "Lunch on Friday?" },
          { id: "2", author: "U0BOB", isBot: false, text: "Friday at noon works." },
        ],
      },
    });
    const call = fake.calls().at(-1);
    expect(call?.system).toMatch(/^You are Ada\.You were called into an existing thread/);
    expect(call?.system).toContain("(2 older messages are left out.)");
    expect(call?.system).toContain("[U0ALICE]\nLunch on Friday?\n\n[U0BOB]\nFriday at noon works.");
    // The cache breakpoint stays on the system prompt alone: the thread's block is not part of the cached prefix.
    expect(call?.cacheBreakpoints).toEqual(["system"]);
    expect(call?.messages).toMatchObject([{ role: "user", text: "what did we decide?" }]);
    expect(call?.messages).toHaveLength(1);
  });

  it("says the thread could not be read, and why, when it is missing", async () => {
    await agent().answer({
      ...agentRequest("and now?", { systemPrompt: "You are Ada." }),
      thread: { status: "unavailable", reason: "the platform's rate limit" },
    });
    expect(fake.calls().at(-1)?.system).toContain("its earlier messages could not be read (the platform's rate limit)");
  });
});
