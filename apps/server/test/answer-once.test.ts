import { settle } from "@resident/testkit";
import { defaultAnswer } from "@resident/testkit/anthropic";
import { appMention, connectSlackWorkspace } from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

let s: InProcessService;
beforeAll(async () => {
  s = await startInProcessService();
});
afterAll(() => s?.close());

type Stats = {
  workspaces: Record<string, { llmTokens: number }>;
  activity: Record<string, { lastError?: { stage: string; message: string } }>;
};

const llmCallsFor = (text: string) => s.llm.calls().filter((call) => call.messages.at(-1)?.text === text);
const postsOf = (text: string) =>
  s.slack.callsTo("chat.postMessage").filter((call) => String(call.rawBody).includes(encodeURIComponent(text)));

describe("the answer is computed once", () => {
  it("chat.postMessage answering 500 to the first three attempts: one LLM call, one reply", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack, { streaming: false });
    const question = "is the answer written once?";
    s.slack.fail(500, { times: 3 });
    const mention = appMention(ws.bot, question);
    expect((await ws.send(mention)).status).toBe(200);
    const replies = () => s.slack.postsInThread(mention.event.channel, mention.event.ts);
    await vi.waitFor(() => expect(replies()).toHaveLength(1), { timeout: 60_000, interval: 50 });
    await settle(1_500);
    const attempts = postsOf("answer to: is the answer written once?").map((call) => call.status);
    console.log(
      `[500 x3] llmCalls=${llmCallsFor(question).length} replies=${replies().length} postAttempts=${attempts.join(",")}`,
    );
    expect(llmCallsFor(question)).toHaveLength(1);
    expect(replies()).toHaveLength(1);
    expect(replies()[0]?.text).toBe("answer to: is the answer written once?");
    expect(attempts).toEqual([500, 500, 500, 200]);
  }, 90_000);

  it("a not_in_channel refusal: one LLM call, no retry, and the reason is the workspace's last error", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack, { streaming: false });
    const question = "can you post here?";
    s.slack.error("not_in_channel");
    await ws.send(appMention(ws.bot, question));
    const lastError = await vi.waitFor(
      async () => {
        const stats = await ws.tenantAdmin.expect<Stats>(200, "GET", `/tenants/${ws.tenantId}/stats`);
        expect(stats.activity[ws.workspaceId]?.lastError).toBeDefined();
        return stats.activity[ws.workspaceId]?.lastError;
      },
      { timeout: 20_000, interval: 50 },
    );
    // Longer than the queue's first backoffs: a retry would have asked again or posted again by now.
    await settle(5_000);
    const attempts = postsOf("answer to: can you post here?").length;
    console.log(
      `[not_in_channel] llmCalls=${llmCallsFor(question).length} postAttempts=${attempts} lastError=${lastError?.message}`,
    );
    expect(llmCallsFor(question)).toHaveLength(1);
    expect(attempts).toBe(1);
    expect(lastError).toMatchObject({ stage: "send", message: expect.stringContaining("not_in_channel") });
  }, 30_000);

  it("prompt caching: cache reads and writes count in the tenant's token stats", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack, { systemPrompt: "You work at Acme." });
    const usage = {
      input_tokens: 7,
      output_tokens: 3,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 200,
    };
    s.llm.answerWith((call) => ({ text: `cached answer to: ${call.messages.at(-1)?.text}`, usage }));
    try {
      const mention = appMention(ws.bot, "is the handbook cached?");
      await ws.send(mention);
      await vi.waitFor(() => expect(s.slack.postsInThread(mention.event.channel, mention.event.ts)).toHaveLength(1), {
        timeout: 20_000,
        interval: 50,
      });
      expect(s.llm.calls().at(-1)?.cacheBreakpoints).toEqual(["system"]);
      const tokens = await vi.waitFor(
        async () => {
          const stats = await ws.tenantAdmin.expect<Stats>(200, "GET", `/tenants/${ws.tenantId}/stats`);
          expect(stats.workspaces[ws.workspaceId]?.llmTokens).toBeGreaterThan(0);
          return stats.workspaces[ws.workspaceId]?.llmTokens;
        },
        { timeout: 20_000, interval: 50 },
      );
      console.log(`[prompt cache] llmTokens=${tokens} (input 7, output 3, cache read 1000, cache write 200)`);
      expect(tokens).toBe(1210);
    } finally {
      s.llm.answerWith(defaultAnswer);
    }
  });
});
