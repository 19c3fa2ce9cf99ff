import { admissionKey } from "@resident/core";
import { settle } from "@resident/testkit";
import {
  appMention,
  botMessage,
  connectSlackWorkspace,
  directMessage,
  ownMessage,
  type SlackWorkspace,
  twinOf,
  urlVerification,
} from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

let s: InProcessService;
beforeAll(async () => {
  s = await startInProcessService();
});
afterAll(() => s?.close());

const workspace = (settings?: Record<string, unknown>) => connectSlackWorkspace(s.url, s.operator, s.slack, settings);
const llmCallsFor = (text: string) => s.llm.calls().filter((call) => call.messages.at(-1)?.text === text);
const repliesTo = (delivery: ReturnType<typeof appMention>) =>
  s.slack.postsInThread(delivery.event.channel, (delivery.event.thread_ts as string) ?? delivery.event.ts);

async function answeredOnce(ws: SlackWorkspace, delivery: ReturnType<typeof appMention>, question: string) {
  const [reply] = await vi.waitFor(
    () => {
      const replies = repliesTo(delivery);
      expect(replies).toHaveLength(1);
      // A streamed reply is in the thread from its first write; it is the answer once its stream has stopped.
      expect(replies[0]?.streaming).not.toBe(true);
      return replies;
    },
    { timeout: 20_000, interval: 50 },
  );
  // Long enough for any duplicate still in flight to have been posted.
  await settle(1_500);
  expect(repliesTo(delivery)).toHaveLength(1);
  expect(llmCallsFor(question)).toHaveLength(1);
  expect(reply?.metadata?.event_payload?.reply_key).toBe(
    `reply:${ws.workspaceId}:${delivery.event.channel}:${delivery.event.ts}`,
  );
  return reply;
}

describe("a Slack message through one instance", () => {
  it("is answered once, in its thread, with the LLM's text", async () => {
    const ws = await workspace({ systemPrompt: "You work at Acme.", model: "claude-test" });
    const mention = appMention(ws.bot, "what is our refund policy?");
    expect((await ws.send(mention)).status).toBe(200);
    const reply = await answeredOnce(ws, mention, "what is our refund policy?");
    expect(reply).toMatchObject({ channel: mention.event.channel, thread_ts: mention.event.ts });
    expect(reply?.text).toBe("answer to: what is our refund policy?");
    expect(llmCallsFor("what is our refund policy?")[0]).toMatchObject({
      system: "You work at Acme.",
      model: "claude-test",
    });
  });

  it("is answered once through five concurrent deliveries, Slack's retries 1-3 and its message twin", async () => {
    const ws = await workspace();
    const question = "can I change my delivery address?";
    const mention = appMention(ws.bot, question);
    const reasons = ["http_timeout", "http_error", "unknown_error"];
    const deliveries = await Promise.all([
      ...Array.from({ length: 5 }, () => ws.send(mention)),
      ...reasons.map((reason, i) => ws.send(mention, { retryNum: i + 1, retryReason: reason })),
      ws.send(twinOf(mention)),
    ]);
    expect(deliveries.map((d) => d.status)).toEqual(Array(9).fill(200));
    await answeredOnce(ws, mention, question);

    const stats = await vi.waitFor(
      async () => {
        const { workspaces } = await ws.tenantAdmin.expect<{ workspaces: Record<string, Record<string, number>> }>(
          200,
          "GET",
          `/tenants/${ws.tenantId}/stats`,
        );
        expect(workspaces[ws.workspaceId]?.replies).toBe(1);
        return workspaces[ws.workspaceId];
      },
      { timeout: 20_000, interval: 50 },
    );
    // The twin carries another event id, but the gate admits the message once (admissionKey): no second job.
    expect(stats).toMatchObject({ events: 9, duplicateEvents: 8, replies: 1, duplicateReplies: 0, failures: 0 });
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    for (const reason of reasons) {
      expect(metrics).toMatch(
        new RegExp(`resident_platform_retries_total\\{platform="slack",reason="${reason}"\\} [1-9]`),
      );
    }
  });

  it("answers a reply inside a thread in that thread, and a direct message without a mention", async () => {
    const ws = await workspace();
    const inThread = appMention(ws.bot, "and for orders abroad?", { threadTs: "1700000000.000100" });
    const dm = directMessage(ws.bot, "hello there");
    await Promise.all([ws.send(inThread), ws.send(dm)]);
    expect(await answeredOnce(ws, inThread, "and for orders abroad?")).toMatchObject({
      thread_ts: "1700000000.000100",
    });
    await answeredOnce(ws, dm, "hello there");
  });

  it("does not answer the bot's own message or another bot's", async () => {
    const ws = await workspace();
    const own = ownMessage(ws.bot, "an answer we posted");
    const other = botMessage(ws.bot, "a notice from another app");
    expect((await ws.send(own)).status).toBe(200);
    expect((await ws.send(other)).status).toBe(200);
    await settle(1_500);
    expect(s.slack.posts().filter((p) => [own.event.channel, other.event.channel].includes(p.channel))).toEqual([]);
    expect([...llmCallsFor("an answer we posted"), ...llmCallsFor("a notice from another app")]).toEqual([]);
  });

  it("answers Slack's url_verification handshake with its challenge", async () => {
    const ws = await workspace();
    const handshake = urlVerification();
    const answer = await ws.send(handshake);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ challenge: handshake.challenge });
  });
});

describe("failures leave nothing stuck", () => {
  it("a failing LLM is retried with backoff and the message answered once when it recovers", async () => {
    const ws = await workspace();
    s.llm.fail(500, 2);
    const mention = appMention(ws.bot, "is the LLM back?");
    await ws.send(mention);
    const [reply] = await vi.waitFor(
      () => {
        const replies = repliesTo(mention);
        expect(replies).toHaveLength(1);
        // A streamed reply is in the thread from its first write; it is the answer once its stream has stopped.
        expect(replies[0]?.streaming).not.toBe(true);
        return replies;
      },
      { timeout: 20_000, interval: 50 },
    );
    await settle(1_500);
    expect(repliesTo(mention)).toHaveLength(1);
    expect(reply?.text).toBe("answer to: is the LLM back?");
    expect(llmCallsFor("is the LLM back?").map((call) => call.status)).toEqual([500, 500, 200]);
  });

  it("a chat.postMessage answered 500 is read back before any resend, and sent once", async () => {
    const ws = await workspace({ streaming: false });
    s.slack.fail(500, { times: 2 });
    const mention = appMention(ws.bot, "will the post go through?");
    await ws.send(mention);
    await vi.waitFor(() => expect(repliesTo(mention)).toHaveLength(1), { timeout: 40_000, interval: 50 });
    await settle(1_500);
    expect(repliesTo(mention)).toHaveLength(1);
    expect(s.slack.callsTo("conversations.replies").length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it("a post that lands while its answer times out is found by reading back, not posted again", async () => {
    const ws = await workspace({ streaming: false });
    s.slack.acceptThenTimeOut(15_000);
    const mention = appMention(ws.bot, "did my post land?");
    await ws.send(mention);
    await vi.waitFor(() => expect(repliesTo(mention)).toHaveLength(1), { timeout: 20_000, interval: 50 });
    const replies = s.slack.callsTo("conversations.replies").length;
    await vi.waitFor(() => expect(s.slack.callsTo("conversations.replies").length).toBeGreaterThan(replies), {
      timeout: 30_000,
      interval: 50,
    });
    await settle(3_000);
    expect(repliesTo(mention)).toHaveLength(1);
    expect(
      s.slack.callsTo("chat.postMessage").filter((c) => String(c.rawBody).includes("did%20my%20post")),
    ).toHaveLength(1);
  }, 60_000);

  it("a 429 from chat.postMessage is waited out and the reply sent once", async () => {
    const ws = await workspace({ streaming: false });
    s.slack.rateLimit(1);
    const mention = appMention(ws.bot, "are we rate limited?");
    await ws.send(mention);
    await answeredOnce(ws, mention, "are we rate limited?");
    expect(s.slack.callsTo("chat.postMessage").filter((c) => c.status === 429).length).toBeGreaterThanOrEqual(1);
  });

  it("a redelivery that finds the first delivery claimed but never queued queues it itself, and it is answered once", async () => {
    const ws = await workspace();
    const question = "did the first instance die?";
    const mention = appMention(ws.bot, question);
    // An instance claimed this delivery and died before queueing it: its claim lives out its lease.
    const key = admissionKey({
      workspaceId: ws.workspaceId,
      eventId: `${mention.api_app_id}:${mention.event_id}`,
      messageKey: `${mention.event.channel}:${mention.event.ts}`,
    });
    await s.service.runtime.shared.claims.claim(key, "instance-that-died", 60_000);

    // Acked at once, long before the lease lapses, and a second copy adds nothing: the job id is the delivery's.
    expect((await ws.send(mention, { retryNum: 1, retryReason: "http_timeout" })).status).toBe(200);
    expect((await ws.send(mention, { retryNum: 2, retryReason: "http_timeout" })).status).toBe(200);
    await answeredOnce(ws, mention, question);
  });
});
