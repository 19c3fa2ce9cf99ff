import { createServer } from "node:net";
import {
  InvalidCredentialsError,
  type OutboundReply,
  OutcomeUnknownError,
  PermanentSendError,
  RateLimitedError,
  SendRejectedError,
} from "@resident/core";
import { describe, expect, it } from "vitest";
import { SlackAdapter } from "../src/index.ts";
import { signingSecret, slackForTests } from "./harness.ts";

// Short enough that a held answer times out; the fake holds answers far longer.
const t = slackForTests({ timeoutMs: 500 });

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error("expected the call to fail");
  expect(error.message).not.toContain(t.bot.token);
  return error;
}

describe("send", () => {
  it("posts once into the message's thread, stamped with the reply key, and returns the ts", async () => {
    const reply = t.replyTo();
    const before = t.slack.posts().length;
    const sent = await t.adapter.send(reply, t.workspace);
    const posts = t.slack.posts().slice(before);
    expect(posts).toEqual([
      expect.objectContaining({
        channel: reply.event.conversation.id,
        thread_ts: reply.event.conversation.replyToId,
        ts: sent.messageId,
        text: "answer to: what is our refund policy?",
        user: t.bot.userId,
        metadata: {
          event_type: "resident_reply",
          event_payload: { reply_key: reply.replyKey, source_event: reply.event.eventId },
        },
      }),
    ]);
    expect(t.slack.callsTo("chat.postMessage").at(-1)?.body).toMatchObject({ unfurl_links: "false" });
  });

  it("answers a reply inside a thread in that thread", async () => {
    const reply = t.replyTo("and the exceptions?", { threadTs: "1700000000.000100" });
    await t.adapter.send(reply, t.workspace);
    expect(t.slack.postsInThread(reply.event.conversation.id, "1700000000.000100")).toHaveLength(1);
  });

  it("a 429 is RateLimitedError with Slack's wait, after exactly one call and no post", async () => {
    const calls = t.slack.callsTo("chat.postMessage").length;
    const posts = t.slack.posts().length;
    t.slack.rateLimit(7);
    const error = await failure(t.adapter.send(t.replyTo(), t.workspace));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(7_000);
    expect(t.slack.callsTo("chat.postMessage").length).toBe(calls + 1);
    expect(t.slack.posts().length).toBe(posts);
  });

  it("Slack's refusals are SendRejectedError naming Slack's code; those a retry meets again are PermanentSendError", async () => {
    for (const code of ["channel_not_found", "not_in_channel", "is_archived", "invalid_auth", "msg_too_long"]) {
      t.slack.error(code);
      const error = await failure(t.adapter.send(t.replyTo(), t.workspace));
      expect(error).toBeInstanceOf(SendRejectedError);
      expect(error instanceof PermanentSendError).toBe(code !== "msg_too_long");
      expect(error.message).toContain(code);
    }
  });

  it("Slack's own internal failures may have posted: OutcomeUnknownError", async () => {
    for (const code of ["internal_error", "fatal_error"]) {
      t.slack.error(code);
      expect(await failure(t.adapter.send(t.replyTo(), t.workspace))).toBeInstanceOf(OutcomeUnknownError);
    }
  });

  it("an answer that is not Slack's JSON (a proxy's page, which the client reports as ok:false) may have posted", async () => {
    t.slack.error("<html><body>502 Bad Gateway</body></html>");
    expect(await failure(t.adapter.send(t.replyTo(), t.workspace))).toBeInstanceOf(OutcomeUnknownError);
  });

  it("a post whose answer times out is OutcomeUnknownError, and findReply then finds it", async () => {
    const reply = t.replyTo();
    t.slack.acceptThenTimeOut(10_000);
    expect(await failure(t.adapter.send(reply, t.workspace))).toBeInstanceOf(OutcomeUnknownError);
    const landed = t.slack.postsInThread(reply.event.conversation.id, reply.event.conversation.replyToId);
    expect(landed).toHaveLength(1);
    await expect(t.adapter.findReply(reply, t.workspace)).resolves.toEqual({ messageId: landed[0]?.ts });
  });

  it("a 500 is OutcomeUnknownError after exactly one call, and findReply then says it is absent", async () => {
    const reply = t.replyTo();
    const calls = t.slack.callsTo("chat.postMessage").length;
    t.slack.fail(500);
    expect(await failure(t.adapter.send(reply, t.workspace))).toBeInstanceOf(OutcomeUnknownError);
    expect(t.slack.callsTo("chat.postMessage").length).toBe(calls + 1);
    await expect(t.adapter.findReply(reply, t.workspace)).resolves.toBeUndefined();
  });

  it("another 4xx refused the request: SendRejectedError", async () => {
    t.slack.fail(404);
    expect(await failure(t.adapter.send(t.replyTo(), t.workspace))).toBeInstanceOf(SendRejectedError);
  });

  it("a refused connection never sent anything: SendRejectedError", async () => {
    const port = await closedPort();
    const offline = new SlackAdapter({ apiUrl: `http://127.0.0.1:${port}/api/`, timeoutMs: 2_000 });
    const error = await failure(offline.send(t.replyTo(), t.workspace));
    expect(error).toBeInstanceOf(SendRejectedError);
    expect(error.message).toContain("ECONNREFUSED");
  });
});

describe("findReply", () => {
  it("tells our replies apart by reply key", async () => {
    const thread = { channel: "C0THREAD1", threadTs: "1700000000.000200" };
    const first = t.replyTo("first", thread);
    const second = t.replyTo("second", thread);
    const sent = await t.adapter.send(first, t.workspace);
    await expect(t.adapter.findReply(first, t.workspace)).resolves.toEqual(sent);
    await expect(t.adapter.findReply(second, t.workspace)).resolves.toBeUndefined();
  });

  it("reads a long thread page by page", async () => {
    const threadTs = "1700000000.000300";
    const replies = Array.from({ length: 205 }, (_, i) =>
      t.replyTo(`question ${i}`, { channel: "C0THREAD2", threadTs }),
    );
    for (const reply of replies) await t.adapter.send(reply, t.workspace);
    const last = replies.at(-1) as OutboundReply;
    const pagesBefore = t.slack.callsTo("conversations.replies").length;
    const found = await t.adapter.findReply(last, t.workspace);
    expect(found?.messageId).toBe(t.slack.postsInThread(last.event.conversation.id, threadTs).at(-1)?.ts);
    expect(t.slack.callsTo("conversations.replies").length - pagesBefore).toBe(2);
  });

  it("throws when the thread cannot be read", async () => {
    const reply = t.replyTo();
    t.slack.error("channel_not_found", { method: "conversations.replies" });
    await failure(t.adapter.findReply(reply, t.workspace));
    t.slack.fail(503, { method: "conversations.replies" });
    await failure(t.adapter.findReply(reply, t.workspace));
  });
});

describe("connect", () => {
  it("learns the bot user, bot and team from auth.test", async () => {
    await expect(t.adapter.connect({ signingSecret, botToken: t.bot.token })).resolves.toEqual({
      botUserId: t.bot.userId,
      botId: t.bot.botId,
      teamId: t.bot.teamId,
    });
  });

  it("a token Slack refuses is InvalidCredentialsError with Slack's code, never the token", async () => {
    const botToken = "xoxb-1-unknown-token";
    const error = await failure(t.adapter.connect({ signingSecret, botToken }));
    expect(error).toBeInstanceOf(InvalidCredentialsError);
    expect(error.message).toContain("invalid_auth");
    expect(error.message).not.toContain(botToken);
  });

  it("Slack being down or busy says nothing about the token", async () => {
    t.slack.error("internal_error", { method: "auth.test" });
    const down = await failure(t.adapter.connect({ signingSecret, botToken: t.bot.token }));
    expect(down).not.toBeInstanceOf(InvalidCredentialsError);
    t.slack.rateLimit(3, { method: "auth.test" });
    expect(await failure(t.adapter.connect({ signingSecret, botToken: t.bot.token }))).toBeInstanceOf(RateLimitedError);
  });
});

/** A port on 127.0.0.1 with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
