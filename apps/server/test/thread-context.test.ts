import { settle } from "@resident/testkit";
import { FakeChatwork } from "@resident/testkit/chatwork";
import { type ChatworkDirectory, connectChatwork } from "@resident/testkit/deployment";
import { appMention, connectSlackWorkspace, type SlackWorkspace } from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

/*
 * Mentioned in a thread or room it has not been part of, the agent sees what was said there: the request recorded
 * at the fake Anthropic carries the messages the fake platform lists. A platform that answers 429 costs the context,
 * never the answer, and is not asked again before its Retry-After.
 */
const directory: ChatworkDirectory = { accounts: [], rooms: [] };
let chatwork: FakeChatwork;
let s: InProcessService;
beforeAll(async () => {
  chatwork = await new FakeChatwork(directory).start();
  s = await startInProcessService({ CHATWORK_API_URL: chatwork.apiUrl });
});
afterAll(async () => {
  await s?.close();
  await chatwork?.close();
});

const waitLong = { timeout: 30_000, interval: 100 };
const threadTalk = [
  "Our VPN keeps dropping since this morning",
  "Same here, every ten minutes or so",
  "Is it only on the office wifi?",
  "No, from home too",
  "IT said they changed the gateway yesterday",
];
const llmCallsFor = (text: string) => s.llm.calls().filter((call) => call.messages.at(-1)?.text === text);

/** A Slack thread of five human messages, rooted at the first. */
function slackThread(ws: SlackWorkspace, channel: string): string {
  const root = s.slack.addMessage(ws.bot, { channel, text: threadTalk[0] as string });
  for (const text of threadTalk.slice(1)) s.slack.addMessage(ws.bot, { channel, text, threadTs: root });
  return root;
}

describe("thread context from Slack", () => {
  it("a mention in a thread of five human messages: the LLM request carries them, and the answer goes out once", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const channel = "C0THREAD1";
    const root = slackThread(ws, channel);
    const question = "what should we try first?";
    const mention = appMention(ws.bot, question, { channel, threadTs: root });
    expect((await ws.send(mention)).status).toBe(200);
    const replies = () => s.slack.postsInThread(channel, root);
    await vi.waitFor(() => expect(replies()).toHaveLength(1), waitLong);
    await settle(1_000);

    const [call] = llmCallsFor(question);
    console.log(
      `[slack thread] llmCalls=${llmCallsFor(question).length} replies=${replies().length} ` +
        `conversations.replies=${s.slack.callsTo("conversations.replies").length} systemChars=${call?.system?.length}`,
    );
    expect(llmCallsFor(question)).toHaveLength(1);
    for (const text of threadTalk) expect(call?.system).toContain(text);
    expect(call?.system?.indexOf(threadTalk[0] as string)).toBeLessThan(
      call?.system?.indexOf(threadTalk[4] as string) ?? 0,
    );
    expect(replies()).toHaveLength(1);
    expect(replies()[0]?.text).toBe(`answer to: ${question}`);
  }, 60_000);

  it("with conversations.replies answering 429 the answer still goes out once, says the thread is missing, and Slack is not asked again before Retry-After", async () => {
    const ws = await connectSlackWorkspace(s.url, s.operator, s.slack);
    const channel = "C0THREAD2";
    const root = slackThread(ws, channel);
    const readsBefore = s.slack.callsTo("conversations.replies").length;
    s.slack.rateLimit(120, { method: "conversations.replies" });
    const question = "any idea why?";
    const mention = appMention(ws.bot, question, { channel, threadTs: root });
    await ws.send(mention);
    await ws.send(mention);
    const replies = () => s.slack.postsInThread(channel, root);
    await vi.waitFor(() => expect(replies()).toHaveLength(1), waitLong);

    // A mention in another thread of the workspace, inside the Retry-After: answered without a read.
    const otherRoot = s.slack.addMessage(ws.bot, { channel, text: "Printer on 3F is jammed" });
    const second = appMention(ws.bot, "can you help?", { channel, threadTs: otherRoot });
    await ws.send(second);
    await vi.waitFor(() => expect(s.slack.postsInThread(channel, otherRoot)).toHaveLength(1), waitLong);
    await settle(1_500);

    const reads = s.slack.callsTo("conversations.replies").slice(readsBefore);
    console.log(
      `[slack 429] llmCalls=${llmCallsFor(question).length} replies=${replies().length} ` +
        `readStatuses=${reads.map((call) => call.status).join(",")}`,
    );
    expect(replies()).toHaveLength(1);
    expect(llmCallsFor(question)).toHaveLength(1);
    expect(llmCallsFor(question)[0]?.system).toContain("could not be read (the platform's rate limit)");
    expect(llmCallsFor("can you help?")[0]?.system).toContain("could not be read");
    expect(reads.map((call) => call.status)).toEqual([429]);
  }, 60_000);
});

describe("thread context from Chatwork", () => {
  it("a mention in a room of five human messages: the LLM request carries them, and the answer goes out once", async () => {
    const ws = await connectChatwork(s.url, s.operator, directory);
    const roomId = ws.rooms[0] as number;
    for (const body of threadTalk) chatwork.addMessage({ roomId, accountId: ws.user.accountId, body });
    const message = ws.message("どうすればいいですか?");
    await Promise.all([ws.send(message.mention, s.url), ws.send(message.created, s.url)]);
    const replies = () => chatwork.posts.filter((post) => post.roomId === roomId);
    await vi.waitFor(() => expect(replies()).toHaveLength(1), waitLong);
    await settle(1_000);

    const calls = s.llm.calls().filter((call) => call.messages.at(-1)?.text.includes("どうすればいいですか?"));
    console.log(
      `[chatwork room] llmCalls=${calls.length} replies=${replies().length} listings=${chatwork.listings(roomId)}`,
    );
    expect(calls).toHaveLength(1);
    for (const text of threadTalk) expect(calls[0]?.system).toContain(text);
    expect(calls[0]?.system).toContain("[Hanako]");
    expect(replies()).toHaveLength(1);
  }, 60_000);

  it("with the room's listing answering 429 the answer still goes out once and says the room is missing", async () => {
    const ws = await connectChatwork(s.url, s.operator, directory);
    const roomId = ws.rooms[0] as number;
    for (const body of threadTalk) chatwork.addMessage({ roomId, accountId: ws.user.accountId, body });
    chatwork.rateLimitListings(roomId);
    const message = ws.message("what now?");
    await Promise.all([ws.send(message.mention, s.url), ws.send(message.created, s.url)]);
    const replies = () => chatwork.posts.filter((post) => post.roomId === roomId);
    await vi.waitFor(() => expect(replies()).toHaveLength(1), waitLong);
    await settle(1_500);

    const calls = s.llm.calls().filter((call) => call.messages.at(-1)?.text.includes("what now?"));
    console.log(
      `[chatwork 429] llmCalls=${calls.length} replies=${replies().length} listings=${chatwork.listings(roomId)}`,
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]?.system).toContain("could not be read (the platform's rate limit)");
    expect(replies()).toHaveLength(1);
  }, 60_000);
});
