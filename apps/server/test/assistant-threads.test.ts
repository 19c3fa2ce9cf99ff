import { assistantThreadStarted, connectSlackWorkspace, directMessage } from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

let s: InProcessService;
beforeAll(async () => {
  s = await startInProcessService();
});
afterAll(() => s?.close());

const prompts = [
  { title: "Opening hours", message: "When are you open?" },
  { title: "営業時間", message: "営業時間を教えてください" },
];
const statusCalls = (channel: string, threadTs: string) =>
  s.slack
    .callsTo("assistant.threads.setStatus")
    .map((call) => call.body as Record<string, unknown>)
    .filter((body) => body.channel_id === channel && body.thread_ts === threadTs)
    .map((body) => body.status);

describe("Slack assistant threads", () => {
  it("offers the workspace's suggested prompts when a thread opens", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack, { suggestedPrompts: prompts });
    const started = assistantThreadStarted(ws.bot);
    expect((await ws.send(started)).status).toBe(200);
    const { channel, ts } = started.event;
    await vi.waitFor(() => expect(s.slack.assistantThread(channel, ts)?.prompts).toEqual(prompts));
  });

  it("offers nothing where the workspace has no suggested prompts", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const started = assistantThreadStarted(ws.bot);
    expect((await ws.send(started)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(s.slack.assistantThread(started.event.channel, started.event.ts)).toBeUndefined();
  });

  it("answers in the thread with its status set while working and cleared, and titles the thread", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const started = assistantThreadStarted(ws.bot);
    const { channel, ts } = started.event;
    await ws.send(started);
    await ws.send(directMessage(ws.bot, "when does the shop open?", { channel, threadTs: ts }));
    await vi.waitFor(() => {
      const [reply] = s.slack.postsInThread(channel, ts);
      expect(reply).toMatchObject({ text: "answer to: when does the shop open?", streaming: false });
    });
    await vi.waitFor(() => expect(statusCalls(channel, ts)).toEqual(["is thinking…", ""]));
    expect(s.slack.assistantThread(channel, ts)).toMatchObject({ status: "", title: "when does the shop open?" });
  });

  it("clears the status when an answer fails, and again after the retry that answers", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const started = assistantThreadStarted(ws.bot);
    const { channel, ts } = started.event;
    s.llm.fail(500, 1);
    await ws.send(directMessage(ws.bot, "is the LLM up?", { channel, threadTs: ts }));
    await vi.waitFor(() => expect(s.slack.postsInThread(channel, ts)[0]?.streaming).toBe(false), { timeout: 20_000 });
    await vi.waitFor(() => expect(statusCalls(channel, ts)).toEqual(["is thinking…", "", "is thinking…", ""]));
    expect(s.slack.assistantThread(channel, ts)?.status).toBe("");
  }, 30_000);
});
