import {
  type OutboundReply,
  RateLimitedError,
  replyKey,
  StreamEndedError,
  toQueued,
  type Workspace,
} from "@resident/core";
import { appMention, FakeSlack, type FakeSlackBot } from "@resident/testkit/slack";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SlackAdapter, type SlackCredentials } from "../src/index.ts";
import { delivery, signingSecret, slackWorkspace } from "./harness.ts";

const slack = new FakeSlack();
let bot: FakeSlackBot;
let adapter: SlackAdapter;
let workspace: Workspace<SlackCredentials>;

beforeAll(async () => {
  await slack.start();
  bot = slack.addBot();
  adapter = new SlackAdapter({ apiUrl: slack.apiUrl, timeoutMs: 2_000 });
  const credentials = { signingSecret, botToken: bot.token };
  workspace = slackWorkspace(await adapter.connect(credentials), credentials);
});
afterAll(() => slack.close());
afterEach(() => {
  slack.clearFaults();
});

function replyTo(text: string, options: Parameters<typeof appMention>[2] = {}): OutboundReply {
  const inbound = adapter.normalize(delivery(appMention(bot, text, options)), workspace, Date.now());
  if (inbound.kind !== "message") throw new Error(`expected a message, got ${inbound.kind}`);
  return { event: toQueued(inbound.event), text: "", replyKey: replyKey(inbound.event) };
}

const params = (method: Parameters<FakeSlack["callsTo"]>[0]) => slack.callsTo(method).map((c) => c.body);

describe("Slack streamed messages", () => {
  it("start → append → stop: one message in the thread, for the asker, stamped with the reply key", async () => {
    const reply = replyTo("how do refunds work?");
    const { streams } = adapter;
    const { messageId } = await streams.start({ ...reply, text: "Refunds " }, workspace);
    await streams.append({ ...reply, text: "take five " }, messageId, workspace);
    await streams.stop({ ...reply, text: "days." }, messageId, workspace);

    const thread = slack.postsInThread(reply.event.conversation.id, reply.event.conversation.threadId ?? "");
    expect(thread).toHaveLength(1);
    expect(thread[0]).toMatchObject({ ts: messageId, text: "Refunds take five days.", streaming: false });
    expect(params("chat.startStream").at(-1)).toMatchObject({
      channel: reply.event.conversation.id,
      thread_ts: reply.event.conversation.threadId,
      markdown_text: "Refunds ",
      recipient_user_id: reply.event.author.id,
      recipient_team_id: bot.teamId,
    });
    expect(await adapter.findReply(reply, workspace)).toEqual({ messageId });
  });

  it("names no recipient in a DM", async () => {
    const reply = replyTo("hello in private", { channel: "D0PRIVATE" });
    await adapter.streams.start({ ...reply, text: "Hi" }, workspace);
    const started = params("chat.startStream").at(-1) as Record<string, unknown>;
    expect(started.channel).toBe("D0PRIVATE");
    expect(started.recipient_user_id).toBeUndefined();
  });

  it("an expired stream refuses appends with StreamEndedError; complete stops nothing and updates the text", async () => {
    const reply = replyTo("a long one");
    const { messageId } = await adapter.streams.start({ ...reply, text: "Part one, " }, workspace);
    slack.expireStreams();
    const refused = await adapter.streams.append({ ...reply, text: "part two" }, messageId, workspace).catch((e) => e);
    expect(refused).toBeInstanceOf(StreamEndedError);

    await adapter.streams.complete({ ...reply, text: "Part one, part two." }, messageId, workspace);
    const [post] = slack.posts().filter((p) => p.ts === messageId);
    expect(post).toMatchObject({ text: "Part one, part two.", updates: 1, streaming: false });
    expect(post?.metadata?.event_payload?.reply_key).toBe(reply.replyKey);
  });

  it("complete on a stream still open stops it first, then updates it (Slack updates no streaming message)", async () => {
    const reply = replyTo("taken over");
    const { messageId } = await adapter.streams.start({ ...reply, text: "half an ans" }, workspace);
    await adapter.streams.complete({ ...reply, text: "The whole answer." }, messageId, workspace);
    expect(slack.posts().filter((p) => p.ts === messageId)).toMatchObject([{ text: "The whole answer.", updates: 1 }]);
    expect(slack.callsTo("chat.stopStream").at(-1)?.body).toMatchObject({ ts: messageId });
  });

  it("a 429 on an append is a RateLimitedError: nothing was appended", async () => {
    const reply = replyTo("slow down");
    const { messageId } = await adapter.streams.start({ ...reply, text: "One" }, workspace);
    slack.rateLimit(2, { method: "chat.appendStream" });
    const error = await adapter.streams.append({ ...reply, text: " two" }, messageId, workspace).catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(slack.posts().find((p) => p.ts === messageId)?.text).toBe("One");
  });
});

describe("a stream its opener did not record", () => {
  it("is found in the thread: our bot's unstamped message after the user's; stamped ones are not", async () => {
    const reply = replyTo("who opened this?");
    const { messageId } = await adapter.streams.start({ ...reply, text: "Half" }, workspace);
    expect(await adapter.streams.findOpened(reply, workspace)).toEqual({ messageId });
    await adapter.streams.stop({ ...reply, text: " done." }, messageId, workspace);
    expect(await adapter.streams.findOpened(reply, workspace)).toBeUndefined();
  });
});
