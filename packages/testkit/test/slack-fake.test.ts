import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  appMention,
  directMessage,
  FakeSlack,
  type FakeSlackBot,
  feedbackClick,
  messageChanged,
  signSlackRequest,
  twinOf,
} from "../src/slack/index.ts";

const slack = new FakeSlack();
let bot: FakeSlackBot;
let neighbour: FakeSlackBot;

beforeAll(async () => {
  await slack.start();
  bot = slack.addBot();
  neighbour = slack.addBot();
});
afterAll(() => slack.close());
afterEach(() => {
  slack.clearFaults();
});

async function form(method: string, params: Record<string, string>, token?: string) {
  const res = await fetch(`${slack.apiUrl}${method}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function json(method: string, params: Record<string, unknown>) {
  const res = await fetch(`${slack.apiUrl}${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(params),
  });
  return (await res.json()) as Record<string, unknown>;
}

const metadata = { event_type: "resident_reply", event_payload: { reply_key: "reply:ws:C1:1.1" } };

describe("FakeSlack", () => {
  it("auth.test describes the bot behind a token, and refuses others", async () => {
    expect((await form("auth.test", {}, bot.token)).body).toMatchObject({
      ok: true,
      user_id: bot.userId,
      bot_id: bot.botId,
      team_id: bot.teamId,
    });
    expect((await form("auth.test", {}, "xoxb-unknown")).body).toEqual({ ok: false, error: "invalid_auth" });
    expect((await form("auth.test", {})).body).toEqual({ ok: false, error: "not_authed" });
  });

  it("records a form-encoded post with its metadata, and a JSON one with the token in the body", async () => {
    const before = slack.posts().length;
    const posted = await form(
      "chat.postMessage",
      { channel: "C1", thread_ts: "1.1", text: "hello", metadata: JSON.stringify(metadata) },
      bot.token,
    );
    expect(posted.body).toMatchObject({ ok: true, channel: "C1", message: { text: "hello", thread_ts: "1.1" } });
    const viaJson = await json("chat.postMessage", { token: bot.token, channel: "C1", text: "top level", metadata });
    expect(viaJson).toMatchObject({ ok: true });
    expect(slack.posts().slice(before)).toEqual([
      expect.objectContaining({ channel: "C1", thread_ts: "1.1", text: "hello", metadata, ts: posted.body.ts }),
      expect.objectContaining({ channel: "C1", text: "top level", metadata, ts: viaJson.ts }),
    ]);
    expect(slack.posts().at(-1)).not.toHaveProperty("thread_ts");
  });

  it("keeps a post's blocks, appends chat.stopStream's, replaces them on chat.update; a click is built from them", async () => {
    const buttons = {
      type: "context_actions",
      elements: [
        {
          type: "feedback_buttons",
          action_id: "fb",
          positive_button: { text: { type: "plain_text", text: "+" }, value: "up" },
          negative_button: { text: { type: "plain_text", text: "-" }, value: "down" },
        },
      ],
    };
    const posted = await form(
      "chat.postMessage",
      { channel: "C1", text: "hi", blocks: JSON.stringify([{ type: "markdown", text: "hi" }, buttons]) },
      bot.token,
    );
    const post = slack.posts().find((p) => p.ts === posted.body.ts);
    if (!post) throw new Error("not posted");
    expect(post.blocks).toEqual([{ type: "markdown", text: "hi" }, buttons]);
    const payload = JSON.parse(new URLSearchParams(feedbackClick(post, { vote: "negative" })).get("payload") ?? "");
    expect(payload).toMatchObject({
      type: "block_actions",
      container: { type: "message", channel_id: "C1", message_ts: posted.body.ts },
      actions: [{ type: "feedback_buttons", action_id: "fb", value: "down" }],
    });

    const started = await form("chat.startStream", { channel: "D1", thread_ts: "1.1", markdown_text: "a" }, bot.token);
    const ts = String(started.body.ts);
    await form(
      "chat.stopStream",
      { channel: "D1", ts, markdown_text: "b", blocks: JSON.stringify([buttons]) },
      bot.token,
    );
    expect(slack.posts().find((p) => p.ts === ts)).toMatchObject({ text: "ab", blocks: [buttons] });
    await form("chat.update", { channel: "D1", ts, markdown_text: "c" }, bot.token);
    const updated = slack.posts().find((p) => p.ts === ts);
    if (!updated) throw new Error("not streamed");
    expect(updated.blocks).toBeUndefined();
    expect(() => feedbackClick(updated, { vote: "positive" })).toThrow("no feedback_buttons");

    const invalid = [JSON.stringify({ type: "markdown" }), JSON.stringify([{ text: "typeless" }]), "[not json"];
    for (const blocks of invalid) {
      expect((await form("chat.postMessage", { channel: "C1", text: "x", blocks }, bot.token)).body).toEqual({
        ok: false,
        error: "invalid_blocks",
      });
    }
    const tooLong = JSON.stringify([{ type: "markdown", text: "x".repeat(12_001) }]);
    expect((await form("chat.postMessage", { channel: "C1", text: "x", blocks: tooLong }, bot.token)).body.ok).toBe(
      false,
    );
  });

  it("refuses posts without a channel, text or valid metadata", async () => {
    const before = slack.posts().length;
    expect((await form("chat.postMessage", { text: "x" }, bot.token)).body.error).toBe("channel_not_found");
    expect((await form("chat.postMessage", { channel: "C1" }, bot.token)).body.error).toBe("no_text");
    const broken = { channel: "C1", text: "x", metadata: "{" };
    expect((await form("chat.postMessage", broken, bot.token)).body.error).toBe("invalid_metadata_format");
    expect(slack.posts().length).toBe(before);
  });

  it("conversations.replies returns the thread, with metadata only when asked, and only to its team", async () => {
    await form("chat.postMessage", { channel: "C2", thread_ts: "2.2", text: "one" }, bot.token);
    await form(
      "chat.postMessage",
      { channel: "C2", thread_ts: "2.2", text: "two", metadata: JSON.stringify(metadata) },
      bot.token,
    );
    const plain = await form("conversations.replies", { channel: "C2", ts: "2.2" }, bot.token);
    expect((plain.body.messages as { text: string }[]).map((m) => m.text)).toEqual(["one", "two"]);
    expect(plain.body.messages).not.toContainEqual(expect.objectContaining({ metadata }));
    const full = await form(
      "conversations.replies",
      { channel: "C2", ts: "2.2", include_all_metadata: "true" },
      bot.token,
    );
    expect(full.body.messages).toContainEqual(expect.objectContaining({ text: "two", metadata }));
    const other = await form("conversations.replies", { channel: "C2", ts: "2.2" }, neighbour.token);
    expect(other.body.messages).toEqual([]);
  });

  it("pages conversations.replies with a cursor", async () => {
    for (const text of ["a", "b", "c"]) {
      await form("chat.postMessage", { channel: "C3", thread_ts: "3.3", text }, bot.token);
    }
    const first = await form("conversations.replies", { channel: "C3", ts: "3.3", limit: "2" }, bot.token);
    const cursor = (first.body.response_metadata as { next_cursor: string }).next_cursor;
    expect(first.body).toMatchObject({ has_more: true });
    const second = await form("conversations.replies", { channel: "C3", ts: "3.3", limit: "2", cursor }, bot.token);
    const texts = [...(first.body.messages as { text: string }[]), ...(second.body.messages as { text: string }[])];
    expect(texts.map((m) => m.text)).toEqual(["a", "b", "c"]);
    expect(second.body).toMatchObject({ has_more: false, response_metadata: { next_cursor: "" } });
  });

  it("counts posts per thread", async () => {
    await form("chat.postMessage", { channel: "C4", thread_ts: "4.4", text: "x" }, bot.token);
    await form("chat.postMessage", { channel: "C4", thread_ts: "4.4", text: "y" }, bot.token);
    expect(slack.countsByThread().get("C4:4.4")).toBe(2);
    expect(slack.postsInThread("C4", "4.4").map((p) => p.text)).toEqual(["x", "y"]);
  });

  it("faults answer instead of posting, once each by default", async () => {
    const before = slack.posts().length;
    slack.rateLimit(9);
    const limited = await form("chat.postMessage", { channel: "C5", text: "x" }, bot.token);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("9");
    slack.error("not_in_channel");
    expect((await form("chat.postMessage", { channel: "C5", text: "x" }, bot.token)).body.error).toBe("not_in_channel");
    expect(slack.posts().length).toBe(before);
    expect((await form("chat.postMessage", { channel: "C5", text: "x" }, bot.token)).body.ok).toBe(true);
    expect(slack.posts().length).toBe(before + 1);
  });

  it("acceptThenTimeOut posts before it answers", async () => {
    const before = slack.posts().length;
    slack.acceptThenTimeOut(60_000);
    const held = form("chat.postMessage", { channel: "C6", text: "landed" }, bot.token).catch(() => undefined);
    await expect.poll(() => slack.posts().length).toBe(before + 1);
    expect(slack.callsTo("chat.postMessage").at(-1)?.status).toBeUndefined();
    void held;
  });
});

describe("signed Slack requests", () => {
  it("sign v0 over the exact bytes, with Slack's retry headers when asked", () => {
    const signed = signSlackRequest({
      signingSecret: "secret",
      body: "{}",
      timestamp: 100,
      retryNum: 2,
      retryReason: "http_timeout",
    });
    const expected = createHmac("sha256", "secret").update("v0:100:{}").digest("hex");
    expect(signed.headers).toMatchObject({
      "x-slack-request-timestamp": "100",
      "x-slack-signature": `v0=${expected}`,
      "x-slack-retry-num": "2",
      "x-slack-retry-reason": "http_timeout",
    });
    expect(signed.rawBody.toString()).toBe("{}");
  });

  it("build twins that share channel and ts under a new event id", () => {
    const mention = appMention(bot, "hi", { channel: "C7" });
    const twin = twinOf(mention);
    expect(mention.event).toMatchObject({ type: "app_mention", channel: "C7", text: `<@${bot.userId}> hi` });
    expect(twin.event).toMatchObject({ type: "message", channel_type: "channel", channel: "C7", ts: mention.event.ts });
    expect(twin.event_id).not.toBe(mention.event_id);
    expect(twinOf(twin).event).toEqual(expect.objectContaining({ type: "app_mention", ts: mention.event.ts }));
  });

  it("build direct messages and edits shaped like Slack's", () => {
    expect(directMessage(bot, "hello").event).toMatchObject({ type: "message", channel_type: "im", text: "hello" });
    expect(directMessage(bot, "hello").event.channel).toMatch(/^D/);
    const edit = messageChanged(bot, "after", { ts: "5.5" });
    expect(edit.event).toMatchObject({ subtype: "message_changed", hidden: true, message: { ts: "5.5" } });
    expect(edit.event.ts).not.toBe("5.5");
  });
});
