import { defaultAnswer, FakeAnthropic } from "@resident/testkit/anthropic";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AnthropicAgent } from "../src/index.ts";
import { agentRequest, CapturingLogger } from "./fixtures.ts";

const apiKey = "sk-ant-test-streaming";

describe("AnthropicAgent, streamed", () => {
  const fake = new FakeAnthropic({ apiKey });
  beforeAll(() => fake.start());
  afterAll(() => fake.close());
  afterEach(() => fake.clearFaults().answerWith(defaultAnswer));

  const agent = () => new AnthropicAgent({ apiKey, baseUrl: fake.url, logger: new CapturingLogger() });

  it("streams the answer (messages.stream): the pieces arrive one by one and join into the answer", async () => {
    fake.answerWith(() => ({ text: ["It opens at nine ", "and closes at five."] }));
    const pieces: string[] = [];
    const answer = await agent().answer({ ...agentRequest("When?"), onText: (piece) => pieces.push(piece) });

    expect(answer.text).toBe("It opens at nine and closes at five.");
    expect(pieces.join("")).toBe(answer.text);
    expect(pieces.length).toBe(8);
    expect(fake.calls().at(-1)).toMatchObject({ stream: true, status: 200 });
    expect(answer.usage).toMatchObject({ inputTokens: expect.any(Number), outputTokens: 8 });
  });

  it("asks without streaming when nobody watches the text", async () => {
    const answer = await agent().answer(agentRequest("When?"));
    expect(answer.text).toBe("answer to: When?");
    expect(fake.calls().at(-1)).toMatchObject({ stream: false });
  });

  it("stops a slow stream when its signal aborts, with the caller's reason", async () => {
    fake.streamSlowly(200);
    const controller = new AbortController();
    const pieces: string[] = [];
    const answering = agent().answer({
      ...agentRequest("a question with a long answer", { signal: controller.signal }),
      onText: (piece) => {
        pieces.push(piece);
        controller.abort(new Error("the lease was lost"));
      },
    });
    await expect(answering).rejects.toThrow("the lease was lost");
    expect(pieces.length).toBe(1);
  });
});
