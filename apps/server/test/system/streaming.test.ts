import { randomUUID } from "node:crypto";
import { settle } from "@resident/testkit";
import type { AnthropicCall } from "@resident/testkit/anthropic";
import type { DeployedInstance } from "@resident/testkit/deployment";
import { appMention, assistantThreadStarted, directMessage, type FakeSlackPost, twinOf } from "@resident/testkit/slack";
import { expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { drained, fire, llmTag, question } from "./support/messages.ts";

/*
 * Streamed answers across three instances behind nginx: every user message ends as exactly one bot message whose
 * text is the LLM's whole answer and whose stream is stopped — through twins and redeliveries, through an instance
 * killed (SIGKILL) while it streams, and through streams Slack ends (expiry) or refuses mid-answer. Counted at the
 * fake Slack, which records every chat.startStream / appendStream / stopStream / update.
 */

const leaseSeconds = 4;
const lockSeconds = 4;

const d = useDeployment({
  instances: 3,
  env: {
    CLAIM_LEASE_SECONDS: String(leaseSeconds),
    JOB_LOCK_SECONDS: String(lockSeconds),
    WORKER_CONCURRENCY: "8",
  },
});

/** The question's words, then enough more that a slow stream takes several writes. */
const answerTo = (question: string) =>
  `answer to: ${question} — ${Array.from({ length: 24 }, (_, i) => `part${i}`).join(" ")}.`;
const answerer = (call: AnthropicCall) => answerTo(call.messages.findLast((m) => m.role === "user")?.text ?? "");

interface Asked {
  tag: string;
  text: string;
  channel: string;
  ts: string;
  /** Asked in an assistant thread (status shown while working). */
  assistant?: boolean;
}

/** Channel mentions (each as its app_mention and message twin, each delivered twice), and as many messages again in
 * assistant threads (each delivered twice) when `inAssistantThreads`. */
async function ask(count: number, prefix: string, inAssistantThreads = false): Promise<Asked[]> {
  const slack = await d().connectSlack();
  const asked: Asked[] = [];
  const deliveries = [];
  for (let i = 0; i < count; i++) {
    const { tag, text } = question(prefix);
    const mention = appMention(slack.bot, text);
    asked.push({ tag, text, channel: mention.event.channel, ts: mention.event.ts });
    for (const body of [mention, twinOf(mention), mention, twinOf(mention)]) deliveries.push(() => slack.send(body));
    if (!inAssistantThreads) continue;
    const inThread = question(prefix);
    const started = assistantThreadStarted(slack.bot);
    const dm = directMessage(slack.bot, inThread.text, { channel: started.event.channel, threadTs: started.event.ts });
    asked.push({ ...inThread, channel: started.event.channel, ts: started.event.ts, assistant: true });
    deliveries.push(() => slack.send(started));
    for (const body of [dm, dm]) deliveries.push(() => slack.send(body));
  }
  const fired = await fire(deliveries, 32);
  expect(Object.fromEntries(fired.statuses)).toEqual({ 200: deliveries.length });
  return asked;
}

const botMessages = (m: Asked): FakeSlackPost[] => d().slack.postsInThread(m.channel, m.ts);
const startsIn = (m: Asked) =>
  d()
    .slack.callsTo("chat.startStream")
    .filter((call) => {
      const body = call.body as Record<string, unknown>;
      return body.channel === m.channel && body.thread_ts === m.ts;
    });

/** Waits until every message has a bot message whose stream has stopped. */
async function answered(asked: Asked[], timeout: number): Promise<void> {
  await vi.waitFor(
    () => {
      const open = asked.filter((m) => !botMessages(m).some((post) => post.streaming !== true));
      if (open.length > 0) throw new Error(`${open.length} messages not answered yet: ${open[0]?.tag}`);
    },
    { timeout, interval: 100 },
  );
  await drained(d(), 60_000);
  await settle(2_000);
}

/** Each message's bot messages, their final texts, and what is wrong with any of them. */
function verdicts(asked: Asked[]) {
  return asked.flatMap((m) => {
    const posts = botMessages(m);
    const wrong: string[] = [];
    if (posts.length !== 1) wrong.push(`${posts.length} bot messages`);
    if (posts.some((post) => post.streaming)) wrong.push("left streaming");
    if (posts[0] && posts[0].text !== answerTo(m.text)) wrong.push(`text ${JSON.stringify(posts[0].text.slice(-40))}`);
    if (startsIn(m).length > 1) wrong.push(`${startsIn(m).length} streams started`);
    const status = d().slack.assistantThread(m.channel, m.ts)?.status;
    if (m.assistant && status !== "") wrong.push(`status ${JSON.stringify(status)}`);
    return wrong.length > 0 ? [`${m.tag}: ${wrong.join(", ")}`] : [];
  });
}

/**
 * The instance holding open the LLM calls of the most of `asked` that are `midStream`, once it holds at least two,
 * and those messages: the instance to kill mid-answer.
 */
async function busiestStreamer<M extends { tag: string }>(
  asked: M[],
  midStream: (m: M) => boolean,
): Promise<{ victim: DeployedInstance; cutOff: M[] }> {
  const byTag = new Map(asked.map((m) => [m.tag, m]));
  const streamingOn = (instance: DeployedInstance) =>
    d()
      .llm.calls()
      .filter((call) => call.status === undefined && d().instanceOf(call) === instance)
      .map((call) => byTag.get(llmTag(call) ?? ""))
      .filter((m): m is M => m !== undefined && midStream(m));
  const victim = await vi.waitFor(
    () => {
      const busiest = [...d().instances].sort((a, b) => streamingOn(b).length - streamingOn(a).length)[0];
      if (!busiest || streamingOn(busiest).length < 2) throw new Error("no instance streams two answers yet");
      return busiest;
    },
    { timeout: 30_000, interval: 20 },
  );
  return { victim, cutOff: streamingOn(victim) };
}

it("a storm with streaming on: one bot message per user message, holding the LLM's whole answer", {
  timeout: 180_000,
}, async () => {
  d().llm.answerWith(answerer).streamSlowly(40);
  const asked = await ask(40, "ss", true);
  await answered(asked, 120_000);
  const appends = d().slack.callsTo("chat.appendStream").length;
  const calls = new Map<string, number>();
  for (const call of d().llm.calls()) calls.set(llmTag(call) ?? "", (calls.get(llmTag(call) ?? "") ?? 0) + 1);
  report("streaming storm", {
    messages: asked.length,
    inAssistantThreads: asked.filter((m) => m.assistant).length,
    startStream: d().slack.callsTo("chat.startStream").length,
    appendStream: appends,
    stopStream: d().slack.callsTo("chat.stopStream").length,
    update: d().slack.callsTo("chat.update").length,
    postMessage: d().slack.callsTo("chat.postMessage").length,
  });
  expect(verdicts(asked)).toEqual([]);
  expect(asked.filter((m) => calls.get(m.tag) !== 1).map((m) => `${m.tag}×${calls.get(m.tag) ?? 0}`)).toEqual([]);
  expect(d().slack.callsTo("chat.postMessage")).toHaveLength(0);
  // Batched: a 24-word answer streamed at a word per 40 ms takes about a second, so a write or two, not a word each.
  expect(appends).toBeLessThan(asked.length * 10);
});

it("kill -9 of the streaming instance mid-answer: each message still ends as one complete bot message", {
  timeout: 180_000,
}, async () => {
  d().llm.answerWith(answerer).streamSlowly(250);
  const asked = await ask(12, "sk", true);
  // The victim: an instance with at least two answers streaming into Slack (their LLM streams are still open), past
  // their first write: their ids are recorded and appends have followed. A kill right after a stream's first write
  // (before its id is recorded) is the unit tests' case (streamed-reply.test.ts).
  const { victim, cutOff } = await busiestStreamer(asked, (m) =>
    botMessages(m).some((p) => p.streaming && p.text.length > 20),
  );
  await victim.kill();
  const partial = cutOff.map((m) => botMessages(m)[0]?.text.length ?? 0);

  await answered(asked, 2 * lockSeconds * 1000 + leaseSeconds * 1000 + 60_000);
  report("streaming crash", {
    messages: asked.length,
    inAssistantThreads: asked.filter((m) => m.assistant).length,
    victim: victim.name,
    cutOffMidStream: cutOff.length,
    partialChars: partial,
    updates: d().slack.callsTo("chat.update").length,
  });
  expect(verdicts(asked)).toEqual([]);
  // The messages cut off mid-stream were finished in place by an update, not posted again.
  expect(cutOff.filter((m) => (botMessages(m)[0]?.updates ?? 0) < 1).map((m) => m.tag)).toEqual([]);
  expect(partial.every((chars, i) => chars < answerTo(cutOff[i]?.text ?? "").length)).toBe(true);
  d().llm.clearFaults();
  await victim.restart({ kill: true, readiness: "readyz" });
});

it("a stream Slack expires or refuses mid-answer is completed in the same message by chat.update", {
  timeout: 120_000,
}, async () => {
  d().llm.answerWith(answerer).streamSlowly(150);
  const streaming = (m: Asked) =>
    vi.waitFor(() => expect(botMessages(m)[0]?.streaming).toBe(true), { timeout: 20_000 });

  const [expiring] = await ask(1, "se");
  if (!expiring) throw new Error("nothing asked");
  await streaming(expiring);
  d().slack.expireStreams();
  await answered([expiring], 60_000);

  const [refused] = await ask(1, "sr");
  if (!refused) throw new Error("nothing asked");
  await streaming(refused);
  d().slack.error("channel_type_not_supported", { method: "chat.appendStream" });
  await answered([refused], 60_000);

  report("stream ended mid-answer", {
    expiredUpdates: botMessages(expiring)[0]?.updates,
    refusedUpdates: botMessages(refused)[0]?.updates,
  });
  expect(verdicts([expiring, refused])).toEqual([]);
  expect(botMessages(expiring)[0]?.updates).toBe(1);
  expect(botMessages(refused)[0]?.updates).toBe(1);
  d().llm.clearFaults();
});

it("Teams: personal chats stream into one final message; group chats and channels show typing, then post once", {
  timeout: 120_000,
}, async () => {
  d().llm.answerWith(answerer).streamSlowly(40);
  const teams = await d().connectTeams();
  const personal = Array.from({ length: 10 }, () => question("tp"));
  const channel = Array.from({ length: 5 }, () => question("tc"));
  const group = Array.from({ length: 5 }, () => question("tg"));
  const deliveries = [
    ...personal.flatMap(({ text }) => {
      const activity = teams.message(text, { conversationType: "personal" });
      return [activity, activity, teams.retryOf(activity)].map((a) => () => teams.send(a));
    }),
    ...channel.flatMap(({ text }) => {
      const activity = teams.message(text);
      return [activity, teams.retryOf(activity)].map((a) => () => teams.send(a));
    }),
    ...group.flatMap(({ text }) => {
      const activity = teams.message(text, { conversationType: "groupChat" });
      return [activity, teams.retryOf(activity)].map((a) => () => teams.send(a));
    }),
  ];
  const fired = await fire(deliveries, 16);
  expect(Object.fromEntries(fired.statuses)).toEqual({ 200: deliveries.length });
  const replies = (tag: string) =>
    d().teams.activities.filter((reply) => String(reply.activity.text ?? "").includes(tag));
  const all = [...personal, ...channel, ...group];
  await vi.waitFor(() => expect(all.filter(({ tag }) => replies(tag).length === 0)).toEqual([]), {
    timeout: 60_000,
    interval: 100,
  });
  await drained(d(), 60_000);
  await settle(2_000);

  const wrong = all.flatMap(({ tag, text }) => {
    const found = replies(tag);
    if (found.length !== 1) return [`${tag}: ${found.length} messages`];
    if (found[0]?.activity.text !== answerTo(text)) return [`${tag}: text ${String(found[0]?.activity.text)}`];
    return [];
  });
  const streamOf = (tag: string) => d().teams.streams.get(replies(tag)[0]?.id ?? "");
  report("teams streaming", {
    personal: personal.length,
    channel: channel.length,
    groupChat: group.length,
    streams: d().teams.streams.size,
    updates: [...d().teams.streams.values()].reduce((n, s) => n + s.updates.length, 0),
    typing: d().teams.typing.length,
  });
  expect(wrong).toEqual([]);
  // Personal: each final message ends a stream that began with an informative update; nothing left unfinished.
  expect(personal.filter(({ tag }) => streamOf(tag)?.updates[0]?.streamType !== "informative")).toEqual([]);
  expect([...d().teams.streams.values()].filter((s) => !s.finished)).toEqual([]);
  // Channels and group chats, which refuse streams (ContentStreamNotAllowed): none was tried, each message was posted
  // once, and the bot was shown typing in answer to it before that post.
  const unstreamed = [...channel, ...group];
  expect(unstreamed.filter(({ tag }) => streamOf(tag) !== undefined)).toEqual([]);
  const refusedStreamWrites = d().teams.server.calls.filter(
    (call) => (call.status ?? 0) >= 400 && JSON.stringify(call.body ?? {}).includes('"streaminfo"'),
  );
  expect(refusedStreamWrites).toHaveLength(0);
  const typedFirst = ({ tag }: { tag: string }) =>
    d().teams.typing.some((t) => t.replyToId === replies(tag)[0]?.replyToId && t.at <= (replies(tag)[0]?.at ?? 0));
  expect(unstreamed.filter((m) => !typedFirst(m)).map(({ tag }) => tag)).toEqual([]);
  d().llm.clearFaults();
});

it("Teams: kill -9 of the instance streaming one-on-one answers: each ends as the final message of its one stream", {
  timeout: 180_000,
}, async () => {
  d().llm.answerWith(answerer).streamSlowly(250);
  const teams = await d().connectTeams();
  const bf = d().teams;
  // One user per chat, as Teams streams one answer per chat at a time; each message delivered twice and retried.
  const asked = Array.from({ length: 12 }, (_, i) => {
    const { tag, text } = question("tk");
    const from = { id: `29:1streamUser${i}`, name: `User ${i}`, aadObjectId: randomUUID() };
    const activity = teams.message(text, { conversationType: "personal", conversationId: `a:1chat-${tag}`, from });
    const retry = teams.retryOf(activity);
    return {
      tag,
      text,
      chat: activity.conversation.id,
      ids: new Set([activity.id, retry.id]),
      deliveries: [activity, activity, retry],
    };
  });
  type Asked = (typeof asked)[number];
  const fired = await fire(
    asked.flatMap((m) => m.deliveries.map((a) => () => teams.send(a))),
    16,
  );
  expect(Object.fromEntries(fired.statuses)).toEqual({ 200: asked.length * 3 });

  const streamsOf = (m: Asked) =>
    [...bf.streams].filter(([, s]) => s.conversationId === m.chat && m.ids.has(s.replyToId ?? ""));
  const finalsOf = (m: Asked) => bf.activities.filter((a) => String(a.activity.text ?? "").includes(m.tag));
  // The victim: an instance streaming at least two answers whose streams have had a streaming update (their ids are
  // recorded: the writer records the id before its second write).
  const { victim, cutOff } = await busiestStreamer(asked, (m) =>
    streamsOf(m).some(([, s]) => !s.finished && (s.updates.at(-1)?.text.length ?? 0) > 20),
  );
  await victim.kill();
  const cutOffStreams = new Map(cutOff.map((m) => [m.tag, streamsOf(m)[0]?.[0]]));
  const partial = cutOff.map((m) => streamsOf(m)[0]?.[1].updates.at(-1)?.text.length ?? 0);

  await vi.waitFor(() => expect(asked.filter((m) => finalsOf(m).length === 0).map((m) => m.tag)).toEqual([]), {
    timeout: 2 * lockSeconds * 1000 + leaseSeconds * 1000 + 60_000,
    interval: 100,
  });
  await drained(d(), 60_000);
  await settle(2_000);

  const wrong = asked.flatMap((m) => {
    const finals = finalsOf(m);
    const streams = streamsOf(m);
    const issues: string[] = [];
    if (finals.length !== 1) issues.push(`${finals.length} messages`);
    if (finals[0] && finals[0].activity.text !== answerTo(m.text))
      issues.push(`text ${String(finals[0].activity.text).slice(-40)}`);
    if (streams.length !== 1) issues.push(`${streams.length} streams`);
    if (streams.some(([, s]) => !s.finished)) issues.push("a stream left unfinished");
    if (finals[0] && streams[0] && finals[0].id !== streams[0][0]) issues.push("final message outside its stream");
    const cut = cutOffStreams.get(m.tag);
    if (cut !== undefined && finals[0]?.id !== cut) issues.push(`not finished in the stream cut off (${cut})`);
    return issues.length > 0 ? [`${m.tag}: ${issues.join(", ")}`] : [];
  });
  // Nothing was written to a stream after its final message (Teams refuses that), and none of these chats was sent a
  // plain typing indicator (a one-on-one chat's stream is its indicator).
  const chats = new Set(asked.map((m) => m.chat));
  const refused = bf.server.calls.filter(
    (call) => chats.has(call.params.conversationId ?? "") && (call.status ?? 0) >= 400,
  );
  const typing = bf.typing.filter((t) => chats.has(t.conversationId));
  const calls = new Map<string, number>();
  for (const call of d().llm.calls()) calls.set(llmTag(call) ?? "", (calls.get(llmTag(call) ?? "") ?? 0) + 1);
  report("teams streaming crash", {
    messages: asked.length,
    victim: victim.name,
    cutOffMidStream: cutOff.length,
    partialChars: partial,
    streams: asked.reduce((n, m) => n + streamsOf(m).length, 0),
    finals: asked.reduce((n, m) => n + finalsOf(m).length, 0),
    updates: asked.reduce((n, m) => n + streamsOf(m).reduce((k, [, s]) => k + s.updates.length, 0), 0),
    refusedWrites: refused.length,
    typing: typing.length,
    llmCallsOfCutOff: cutOff.map((m) => calls.get(m.tag) ?? 0),
  });
  expect(wrong).toEqual([]);
  expect(cutOff.length).toBeGreaterThanOrEqual(2);
  expect(partial.every((chars, i) => chars < answerTo(cutOff[i]?.text ?? "").length)).toBe(true);
  expect(refused.map((call) => `${call.status} ${call.rawBody.slice(0, 80)}`)).toEqual([]);
  expect(typing).toEqual([]);
  d().llm.clearFaults();
  await victim.restart({ kill: true, readiness: "readyz" });
});

it("Teams: a stream whose time runs out mid-answer is completed in place by an update, never a second message", {
  timeout: 120_000,
}, async () => {
  d().llm.answerWith(answerer).streamSlowly(150);
  const teams = await d().connectTeams();
  const bf = d().teams;
  const { tag, text } = question("te");
  const activity = teams.message(text, { conversationType: "personal", conversationId: `a:1chat-${tag}` });
  expect((await teams.send(activity)).status).toBe(200);
  const streams = () => [...bf.streams].filter(([, s]) => s.replyToId === activity.id);
  const messages = () => bf.activities.filter((a) => String(a.activity.text ?? "").includes(tag));
  await vi.waitFor(() => expect(streams()[0]?.[1].updates.length).toBeGreaterThan(1), { timeout: 20_000 });
  bf.expireStreams();
  await vi.waitFor(() => expect(messages()).toHaveLength(1), { timeout: 60_000, interval: 100 });
  await drained(d(), 60_000);
  await settle(2_000);

  const [streamId, stream] = streams()[0] ?? [];
  report("teams stream expired mid-answer", {
    streams: streams().length,
    streamUpdates: stream?.updates.length,
    messages: messages().length,
    messageUpdates: messages()[0]?.updates,
  });
  expect(streams()).toHaveLength(1);
  expect(stream?.finished).toBe(true);
  expect(messages()).toMatchObject([{ id: streamId, activity: { text: answerTo(text) }, updates: 1 }]);
  d().llm.clearFaults();
});
