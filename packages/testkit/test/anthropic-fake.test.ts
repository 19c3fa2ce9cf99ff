import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeAnthropic } from "../src/anthropic/index.ts";

describe("FakeAnthropic", () => {
  const fake = new FakeAnthropic();
  beforeAll(() => fake.start());
  afterAll(() => fake.close());
  afterEach(() => fake.clearFaults());

  const valid = {
    model: "claude-test",
    system: "Be brief.",
    max_tokens: 100,
    messages: [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "hello" }] },
      { role: "user", content: "what is two plus two" },
    ],
  };
  const post = (body: unknown, headers: Record<string, string> = { "x-api-key": "sk-test" }) =>
    fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  it("answers a Messages API response to the last user message and records the call", async () => {
    const res = await post(valid);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text: "answer to: what is two plus two" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 9, output_tokens: 7 },
    });
    expect(fake.calls().at(-1)).toMatchObject({
      status: 200,
      apiKey: "sk-test",
      model: "claude-test",
      system: "Be brief.",
      maxTokens: 100,
      messages: [
        { role: "user", text: "hi" },
        { role: "assistant", text: "hello" },
        { role: "user", text: "what is two plus two" },
      ],
    });
  });

  it("takes the key from Authorization: Bearer too, and refuses a call without one", async () => {
    expect((await post(valid, { authorization: "Bearer sk-bearer" })).status).toBe(200);
    expect(fake.calls().at(-1)?.apiKey).toBe("sk-bearer");

    const refused = await post(valid, {});
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
  });

  it("refuses a conversation that does not start with the user or does not alternate", async () => {
    const [first, second] = valid.messages;
    for (const messages of [[second, first], [first, first], [], [{ role: "user", content: " " }]]) {
      const res = await post({ ...valid, messages });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    }
  });

  it("fails and rate-limits the given number of calls, recording each", async () => {
    const before = fake.callCount();
    fake.fail(529, 1).rateLimit(12, 1);

    const overloaded = await post(valid);
    expect(overloaded.status).toBe(529);
    expect(await overloaded.json()).toMatchObject({ error: { type: "overloaded_error" } });
    const limited = await post(valid);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("12");
    expect((await post(valid)).status).toBe(200);

    expect(
      fake
        .calls()
        .slice(before)
        .map((call) => call.status),
    ).toEqual([529, 429, 200]);
  });
});
