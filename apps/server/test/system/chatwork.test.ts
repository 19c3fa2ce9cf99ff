import { randomBytes } from "node:crypto";
import { deliver, settle } from "@resident/testkit";
import { signChatworkWebhook } from "@resident/testkit/chatwork";
import { expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { countByTag, drained, fire, perInstance, question, tagsIn } from "./support/messages.ts";

/*
 * Chatwork through nginx to three instances (issue 5). Chatwork delivers one message through two webhooks and never
 * redelivers; it allows 10 posts per 10 s per room, which the fake enforces with real 429s. The instances share one
 * rate limiter in Redis, so a burst in one room is spread over the windows without a single 429.
 */

const d = useDeployment({ instances: 3, platforms: ["chatwork"], env: { WORKER_CONCURRENCY: "8" } });

const received = () => perInstance(d(), "resident_deliveries_received_total", { platform: "chatwork" });

it("answers a message's two webhook deliveries, raced at all three instances, once, quoting it", async () => {
  const chatwork = await d().connectChatwork({ rooms: 1 });
  const { tag, text } = question("cw");
  const message = chatwork.message(text);
  const before = await received();
  const acks = await Promise.all([
    ...[message.mention, message.created, message.mention, message.created].map((r) => chatwork.send(r)),
    ...d().instances.flatMap((instance) => [
      chatwork.send(message.mention, instance.url),
      chatwork.send(message.created, instance.url),
    ]),
  ]);
  const after = await received();
  const perInstanceDeliveries = Object.fromEntries(Object.entries(after).map(([n, v]) => [n, v - (before[n] ?? 0)]));
  expect(acks.map((a) => a.status)).toEqual(Array(10).fill(200));
  expect(Object.values(perInstanceDeliveries).every((n) => n >= 2)).toBe(true);

  const mine = () => d().chatwork.posts.filter((post) => tagsIn(post.body).includes(tag));
  await vi.waitFor(() => expect(mine()).toHaveLength(1), { timeout: 20_000, interval: 50 });
  await drained(d());
  await settle(1_500);
  const llmCalls = countByTag(d(), new Set([tag])).calls.get(tag) ?? 0;
  report("chatwork twin race", { deliveries: acks.length, perInstanceDeliveries, replies: mine().length, llmCalls });
  expect(mine()).toHaveLength(1);
  const [post] = mine();
  expect(post?.roomId).toBe(message.roomId);
  expect(post?.accountId).toBe(chatwork.bot.accountId);
  expect(post?.body.startsWith(`${message.replyTag}\n`), post?.body).toBe(true);
  expect(post?.body).toContain(`answer to: ${text}`);
  expect(llmCalls).toBe(1);
});

it("refuses bad, missing and misplaced signatures, malformed JSON and an unknown workspace, queuing nothing", async () => {
  const chatwork = await d().connectChatwork({ rooms: 1 });
  const { tag, text } = question("cb");
  const message = chatwork.message(text);
  const payload = JSON.parse(message.mention.rawBody.toString("utf8"));
  const foreignToken = randomBytes(32).toString("base64");
  const webhookToken = chatwork.accountWebhookToken;
  const { "x-chatworkwebhooksignature": _dropped, ...unsignedHeaders } = message.mention.headers;
  const cases: [string, Parameters<typeof deliver>[1], number, string?][] = [
    [
      "wrong signature in the header",
      signChatworkWebhook({ webhookToken: foreignToken, body: payload, placement: "header" }),
      401,
    ],
    [
      "wrong signature in the query",
      signChatworkWebhook({ webhookToken: foreignToken, body: payload, placement: "query" }),
      401,
    ],
    ["no signature", { rawBody: message.mention.rawBody, headers: unsignedHeaders, query: {} }, 401],
    [
      "malformed JSON",
      signChatworkWebhook({ webhookToken, body: `${message.mention.rawBody.toString("utf8")},` }),
      400,
    ],
    ["unknown workspace", message.mention, 404, `${d().url}/chatwork/webhook/ws_doesnotexist`],
  ];
  const statuses: Record<string, number> = {};
  for (const [name, request, , url] of cases) {
    statuses[name] = (await deliver(url ?? `${d().url}${chatwork.webhookPath}`, request)).status;
  }
  await settle(1_500);
  await drained(d());
  const { replies, calls } = countByTag(d(), new Set([tag]));
  report("chatwork refused", { statuses, replies: replies.size, llmCalls: calls.size });
  expect(statuses).toEqual(Object.fromEntries(cases.map(([name, , status]) => [name, status])));
  expect(replies.size).toBe(0);
  expect(calls.size).toBe(0);

  // Nothing was claimed under the message's delivery identity: its genuine delivery is answered.
  expect((await chatwork.send(message.mention)).status).toBe(200);
  await vi.waitFor(() => expect(countByTag(d(), new Set([tag])).replies.get(tag)).toBe(1), {
    timeout: 20_000,
    interval: 50,
  });
});

it("answers a burst of 50 mentions in one room once each, within Chatwork's limits: no 429", {
  timeout: 150_000,
}, async () => {
  const chatwork = await d().connectChatwork({ rooms: 1 });
  const messages = Array.from({ length: 50 }, (_, i) => {
    const { tag, text } = question("cb");
    return { i, tag, ...chatwork.message(text) };
  });
  const tags = new Set(messages.map((m) => m.tag));
  const rateLimitedBefore = d().chatwork.rateLimited;
  const started = Date.now();
  // Every mention through nginx, all at once, in order; each room-webhook twin straight to one of the instances.
  const fired = await fire(
    messages.flatMap((m) => [
      () => chatwork.send(m.mention),
      () => chatwork.send(m.created, d().instances[m.i % d().instances.length]?.url),
    ]),
    100,
  );
  expect(Object.fromEntries(fired.statuses)).toEqual({ 200: 100 });

  // Chatwork lets 10 posts per 10 s into a room; our windows run a tenth plus half a second longer: 11.5 s per ten.
  const boundMs = Math.ceil(messages.length / 10) * 11_500 + 30_000;
  await vi.waitFor(() => expect(countByTag(d(), tags).replies.size).toBe(messages.length), {
    timeout: boundMs,
    interval: 50,
  });
  const answeredInMs = Date.now() - started;
  await drained(d());
  await settle(1_500);

  const { replies, calls } = countByTag(d(), tags);
  const arrival = d()
    .chatwork.posts.filter((post) => post.roomId === chatwork.rooms[0])
    .map((post) => messages.findIndex((m) => tagsIn(post.body).includes(m.tag)));
  const inversions = arrival.reduce((n, x, i) => n + arrival.slice(i + 1).filter((y) => y < x).length, 0);
  const postTimes = d()
    .chatwork.posts.filter((post) => post.roomId === chatwork.rooms[0])
    .map((post) => post.sendTime);
  report("chatwork burst", {
    mentions: messages.length,
    deliveries: 100,
    replies: [...replies.values()].reduce((a, b) => a + b, 0),
    llmCalls: [...calls.values()].reduce((a, b) => a + b, 0),
    rateLimited429s: d().chatwork.rateLimited - rateLimitedBefore,
    answeredInMs,
    inOrder: inversions === 0,
    inversions,
    arrivalOrder: arrival.join(","),
    postsPerSecond: Object.fromEntries(tallyBy(postTimes)),
  });

  expect(
    [...tags].filter((t) => replies.get(t) !== 1),
    "mentions not answered exactly once",
  ).toEqual([]);
  expect(d().chatwork.rateLimited - rateLimitedBefore, "429s answered by the fake Chatwork").toBe(0);
  // Waiting out the shared room window must not cost a second LLM call: the sender waits within a time budget.
  expect(
    [...tags].filter((t) => calls.get(t) !== 1),
    "mentions not given to the LLM exactly once",
  ).toEqual([]);
});

function tallyBy(values: number[]): Map<number, number> {
  const first = values[0] ?? 0;
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value - first, (counts.get(value - first) ?? 0) + 1);
  return counts;
}
