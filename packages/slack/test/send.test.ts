import { createServer } from "node:net";
import {
  InvalidCredentialsError,
  type OutboundReply,
  OutcomeUnknownError,
  PermanentSendError,
  RateLimitedError,
  replyKey,
  SendRejectedError,
  toQueued,
  type Workspace,
} from "@resident/core";
import { appMention, FakeSlack, type FakeSlackBot, type MessageOptions } from "@resident/testkit/slack";
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
  // Short enough that a held answer times out; the fake holds answers far longer.
  adapter = new SlackAdapter({ apiUrl: slack.apiUrl, timeoutMs: 500 });
  const credentials = { signingSecret, botToken: bot.token };
  workspace = slackWorkspace(await adapter.connect(credentials), credentials);
});
afterAll(() => slack.close());
afterEach(() => {
  slack.clearFaults();
});

/** A reply to a fresh user message mentioning the bot, as the reply worker builds it. */
function replyTo(text = "what is our refund policy?", options: MessageOptions = {}): OutboundReply {
  const inbound = adapter.normalize(delivery(appMention(bot, text, options)), workspace, Date.now());
  if (inbound.kind !== "message") throw new Error(`expected a message, got ${inbound.kind}`);
  return { event: toQueued(inbound.event), text: `answer to: ${text}`, replyKey: replyKey(inbound.event) };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error("expected the call to fail");
  expect(error.message).not.toContain(bot.token);
  return error;
}

describe("send", () => {
  it("posts once into the message's thread, stamped with the reply key, and returns the ts", async () => {
    const reply = replyTo();
    const before = slack.posts().length;
    const sent = await adapter.send(reply, workspace);
    const posts = slack.posts().slice(before);
    expect(posts).toEqual([
      expect.objectContaining({
        channel: reply.event.conversation.id,
        thread_ts: reply.event.conversation.replyToId,
        ts: sent.messageId,
        text: "answer to: what is our refund policy?",
        user: bot.userId,
        metadata: {
          event_type: "resident_reply",
          event_payload: { reply_key: reply.replyKey, source_event: reply.event.eventId },
        },
      }),
    ]);
    expect(slack.callsTo("chat.postMessage").at(-1)?.body).toMatchObject({ unfurl_links: "false" });
  });

  it("answers a reply inside a thread in that thread", async () => {
    const reply = replyTo("and the exceptions?", { threadTs: "1700000000.000100" });
    await adapter.send(reply, workspace);
    expect(slack.postsInThread(reply.event.conversation.id, "1700000000.000100")).toHaveLength(1);
  });

  it("a 429 is RateLimitedError with Slack's wait, after exactly one call and no post", async () => {
    const calls = slack.callsTo("chat.postMessage").length;
    const posts = slack.posts().length;
    slack.rateLimit(7);
    const error = await failure(adapter.send(replyTo(), workspace));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(7_000);
    expect(slack.callsTo("chat.postMessage").length).toBe(calls + 1);
    expect(slack.posts().length).toBe(posts);
  });

  it("Slack's refusals are SendRejectedError naming Slack's code; those a retry meets again are PermanentSendError", async () => {
    for (const code of ["channel_not_found", "not_in_channel", "is_archived", "invalid_auth", "msg_too_long"]) {
      slack.error(code);
      const error = await failure(adapter.send(replyTo(), workspace));
      expect(error).toBeInstanceOf(SendRejectedError);
      expect(error instanceof PermanentSendError).toBe(code !== "msg_too_long");
      expect(error.message).toContain(code);
    }
  });

  it("Slack's own internal failures may have posted: OutcomeUnknownError", async () => {
    for (const code of ["internal_error", "fatal_error"]) {
      slack.error(code);
      expect(await failure(adapter.send(replyTo(), workspace))).toBeInstanceOf(OutcomeUnknownError);
    }
  });

  it("an answer that is not Slack's JSON (a proxy's page, which the client reports as ok:false) may have posted", async () => {
    slack.error("<html><body>502 Bad Gateway</body></html>");
    expect(await failure(adapter.send(replyTo(), workspace))).toBeInstanceOf(OutcomeUnknownError);
  });

  it("a post whose answer times out is OutcomeUnknownError, and findReply then finds it", async () => {
    const reply = replyTo();
    slack.acceptThenTimeOut(10_000);
    expect(await failure(adapter.send(reply, workspace))).toBeInstanceOf(OutcomeUnknownError);
    const landed = slack.postsInThread(reply.event.conversation.id, reply.event.conversation.replyToId);
    expect(landed).toHaveLength(1);
    await expect(adapter.findReply(reply, workspace)).resolves.toEqual({ messageId: landed[0]?.ts });
  });

  it("a 500 is OutcomeUnknownError after exactly one call, and findReply then says it is absent", async () => {
    const reply = replyTo();
    const calls = slack.callsTo("chat.postMessage").length;
    slack.fail(500);
    expect(await failure(adapter.send(reply, workspace))).toBeInstanceOf(OutcomeUnknownError);
    expect(slack.callsTo("chat.postMessage").length).toBe(calls + 1);
    await expect(adapter.findReply(reply, workspace)).resolves.toBeUndefined();
  });

  it("another 4xx refused the request: SendRejectedError", async () => {
    slack.fail(404);
    expect(await failure(adapter.send(replyTo(), workspace))).toBeInstanceOf(SendRejectedError);
  });

  it("a refused connection never sent anything: SendRejectedError", async () => {
    const port = await closedPort();
    const offline = new SlackAdapter({ apiUrl: `http://127.0.0.1:${port}/api/`, timeoutMs: 2_000 });
    const error = await failure(offline.send(replyTo(), workspace));
    expect(error).toBeInstanceOf(SendRejectedError);
    expect(error.message).toContain("ECONNREFUSED");
  });
});

describe("findReply", () => {
  it("tells our replies apart by reply key", async () => {
    const thread = { channel: "C0THREAD1", threadTs: "1700000000.000200" };
    const first = replyTo("first", thread);
    const second = replyTo("second", thread);
    const sent = await adapter.send(first, workspace);
    await expect(adapter.findReply(first, workspace)).resolves.toEqual(sent);
    await expect(adapter.findReply(second, workspace)).resolves.toBeUndefined();
  });

  it("reads a long thread page by page", async () => {
    const threadTs = "1700000000.000300";
    const replies = Array.from({ length: 205 }, (_, i) => replyTo(`question ${i}`, { channel: "C0THREAD2", threadTs }));
    for (const reply of replies) await adapter.send(reply, workspace);
    const last = replies.at(-1) as OutboundReply;
    const pagesBefore = slack.callsTo("conversations.replies").length;
    const found = await adapter.findReply(last, workspace);
    expect(found?.messageId).toBe(slack.postsInThread(last.event.conversation.id, threadTs).at(-1)?.ts);
    expect(slack.callsTo("conversations.replies").length - pagesBefore).toBe(2);
  });

  it("throws when the thread cannot be read", async () => {
    const reply = replyTo();
    slack.error("channel_not_found", { method: "conversations.replies" });
    await failure(adapter.findReply(reply, workspace));
    slack.fail(503, { method: "conversations.replies" });
    await failure(adapter.findReply(reply, workspace));
  });
});

describe("connect", () => {
  it("learns the bot user, bot and team from auth.test", async () => {
    await expect(adapter.connect({ signingSecret, botToken: bot.token })).resolves.toEqual({
      botUserId: bot.userId,
      botId: bot.botId,
      teamId: bot.teamId,
    });
  });

  it("a token Slack refuses is InvalidCredentialsError with Slack's code, never the token", async () => {
    const botToken = "xoxb-1-unknown-token";
    const error = await failure(adapter.connect({ signingSecret, botToken }));
    expect(error).toBeInstanceOf(InvalidCredentialsError);
    expect(error.message).toContain("invalid_auth");
    expect(error.message).not.toContain(botToken);
  });

  it("Slack being down or busy says nothing about the token", async () => {
    slack.error("internal_error", { method: "auth.test" });
    const down = await failure(adapter.connect({ signingSecret, botToken: bot.token }));
    expect(down).not.toBeInstanceOf(InvalidCredentialsError);
    slack.rateLimit(3, { method: "auth.test" });
    expect(await failure(adapter.connect({ signingSecret, botToken: bot.token }))).toBeInstanceOf(RateLimitedError);
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
