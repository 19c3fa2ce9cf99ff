import { RateLimitedError, StreamEndedError } from "@resident/core";
import type { FakeSlack } from "@resident/testkit/slack";
import { describe, expect, it } from "vitest";
import { slackForTests } from "./harness.ts";

const t = slackForTests({ timeoutMs: 2_000 });

const params = (method: Parameters<FakeSlack["callsTo"]>[0]) => t.slack.callsTo(method).map((c) => c.body);

describe("Slack streamed messages", () => {
  it("start → append → stop: one message in the thread, for the asker, stamped with the reply key", async () => {
    const reply = t.replyTo("how do refunds work?");
    const { streams } = t.adapter;
    const { messageId } = await streams.start({ ...reply, text: "Refunds " }, t.workspace);
    await streams.append({ ...reply, text: "take five " }, messageId, t.workspace);
    await streams.stop({ ...reply, text: "days." }, messageId, t.workspace);

    const thread = t.slack.postsInThread(reply.event.conversation.id, reply.event.conversation.threadId ?? "");
    expect(thread).toHaveLength(1);
    expect(thread[0]).toMatchObject({ ts: messageId, text: "Refunds take five days.", streaming: false });
    expect(params("chat.startStream").at(-1)).toMatchObject({
      channel: reply.event.conversation.id,
      thread_ts: reply.event.conversation.threadId,
      markdown_text: "Refunds ",
      recipient_user_id: reply.event.author.id,
      recipient_team_id: t.bot.teamId,
    });
    expect(await t.adapter.findReply(reply, t.workspace)).toEqual({ messageId });
  });

  it("names no recipient in a DM", async () => {
    const reply = t.replyTo("hello in private", { channel: "D0PRIVATE" });
    await t.adapter.streams.start({ ...reply, text: "Hi" }, t.workspace);
    const started = params("chat.startStream").at(-1) as Record<string, unknown>;
    expect(started.channel).toBe("D0PRIVATE");
    expect(started.recipient_user_id).toBeUndefined();
  });

  it("an expired stream refuses appends with StreamEndedError; complete stops nothing and updates the text", async () => {
    const reply = t.replyTo("a long one");
    const { messageId } = await t.adapter.streams.start({ ...reply, text: "Part one, " }, t.workspace);
    t.slack.expireStreams();
    const refused = await t.adapter.streams
      .append({ ...reply, text: "part two" }, messageId, t.workspace)
      .catch((e) => e);
    expect(refused).toBeInstanceOf(StreamEndedError);

    await t.adapter.streams.complete({ ...reply, text: "Part one, part two." }, messageId, t.workspace);
    const [post] = t.slack.posts().filter((p) => p.ts === messageId);
    expect(post).toMatchObject({ text: "Part one, part two.", updates: 1, streaming: false });
    expect(post?.metadata?.event_payload?.reply_key).toBe(reply.replyKey);
  });

  it("complete on a stream still open stops it first, then updates it (Slack updates no streaming message)", async () => {
    const reply = t.replyTo("taken over");
    const { messageId } = await t.adapter.streams.start({ ...reply, text: "half an ans" }, t.workspace);
    await t.adapter.streams.complete({ ...reply, text: "The whole answer." }, messageId, t.workspace);
    expect(t.slack.posts().filter((p) => p.ts === messageId)).toMatchObject([
      { text: "The whole answer.", updates: 1 },
    ]);
    expect(t.slack.callsTo("chat.stopStream").at(-1)?.body).toMatchObject({ ts: messageId });
  });

  it("a 429 on an append is a RateLimitedError: nothing was appended", async () => {
    const reply = t.replyTo("slow down");
    const { messageId } = await t.adapter.streams.start({ ...reply, text: "One" }, t.workspace);
    t.slack.rateLimit(2, { method: "chat.appendStream" });
    const error = await t.adapter.streams.append({ ...reply, text: " two" }, messageId, t.workspace).catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(t.slack.posts().find((p) => p.ts === messageId)?.text).toBe("One");
  });
});

describe("a stream its opener did not record", () => {
  it("is found in the thread: our bot's unstamped message after the user's; stamped ones are not", async () => {
    const reply = t.replyTo("who opened this?");
    const { messageId } = await t.adapter.streams.start({ ...reply, text: "Half" }, t.workspace);
    expect(await t.adapter.streams.findOpened(reply, t.workspace)).toEqual({ messageId });
    await t.adapter.streams.stop({ ...reply, text: " done." }, messageId, t.workspace);
    expect(await t.adapter.streams.findOpened(reply, t.workspace)).toBeUndefined();
  });
});
