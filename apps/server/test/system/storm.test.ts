import { type Delivered, settle } from "@resident/testkit";
import { seededRandom, shuffle } from "@resident/testkit/deployment";
import { appMention, twinOf } from "@resident/testkit/slack";
import type { TeamsActivity } from "@resident/testkit/teams";
import { expect, it } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import {
  ackLatency,
  countByTag,
  drained,
  fire,
  llmCallsPerInstance,
  notExactly,
  type Planned,
  percentiles,
  perInstance,
  question,
  tagsIn,
} from "./support/messages.ts";

/*
 * The storm: three instances behind a real nginx on one real Redis, every user message delivered as all its twins,
 * each of them several times (some marked as Slack's retries, some as Teams' retries under a new activity id), fired
 * concurrently so that the copies of one message race on different instances; then later redeliveries of some.
 * Exactly one reply per message must reach each fake platform, after exactly one LLM call, and nothing else.
 */

const slackMessages = 300;
const teamsMessages = 100;
const chatworkMessages = 100;
/** Chatwork allows 10 posts per 10 s per room: 5 messages per room stay well inside one window. */
const chatworkRooms = 20;
const inFlight = 64;
const seed = Number(process.env.STORM_SEED ?? Date.now() % 1_000_000);

const d = useDeployment({ instances: 3, env: { WORKER_CONCURRENCY: "8" } });

it("answers every message exactly once across three instances", { timeout: 240_000 }, async () => {
  const random = seededRandom(seed);
  const times = () => 2 + Math.floor(random() * 3); // 2–4
  const [slack, teams, chatwork] = await Promise.all([
    d().connectSlack(),
    d().connectTeams(),
    d().connectChatwork({ rooms: chatworkRooms }),
  ]);
  const planned: Planned[] = [];
  /** A later redelivery of each message, fired once the storm is answered: it must add nothing. */
  const late = new Map<string, () => Promise<Delivered>>();
  const slackThreadOf = new Map<string, string>();
  const teamsIds = new Map<string, Set<string>>();

  const slackMessage = () => {
    const { tag, text } = question("s");
    const mention = appMention(slack.bot, text);
    slackThreadOf.set(tag, `${mention.event.channel}:${mention.event.ts}`);
    const deliveries: Planned["deliveries"] = [];
    for (const body of [mention, twinOf(mention)]) {
      for (let k = 0, n = times(); k < n; k++) {
        // Slack marks its redeliveries; some copies come as plain concurrent duplicates, some as retries 1–3.
        const retry = k > 0 && random() < 0.5 ? { retryNum: k, retryReason: "http_timeout" } : {};
        deliveries.push((via?: string) => slack.send(body, retry, via));
      }
    }
    late.set(tag, () => slack.send(mention, { retryNum: 3, retryReason: "http_timeout" }));
    return { platform: "slack" as const, tag, text, deliveries };
  };
  const teamsMessage = () => {
    const { tag, text } = question("t");
    const personal = random() < 0.3;
    const activity = teams.message(
      text,
      personal ? { conversationType: "personal", conversationId: `a:1chat-${tag}` } : {},
    );
    const ids = new Set([activity.id]);
    const deliveries: Planned["deliveries"] = [(via) => teams.send(activity, via)];
    for (let k = 1, n = times(); k < n; k++) {
      // Teams redelivers the same activity, or retries it under a new activity id with the same text.
      let copy: TeamsActivity = activity;
      if (random() < 0.4) {
        copy = teams.retryOf(activity);
        ids.add(copy.id);
      }
      deliveries.push((via) => teams.send(copy, via));
    }
    const retry = teams.retryOf(activity);
    ids.add(retry.id);
    late.set(tag, () => teams.send(retry));
    teamsIds.set(tag, ids);
    return { platform: "teams" as const, tag, text, deliveries };
  };
  let chatworkCount = 0;
  const chatworkMessage = () => {
    const { tag, text } = question("c");
    const message = chatwork.message(text, { roomId: chatwork.rooms[chatworkCount++ % chatworkRooms] });
    const deliveries: Planned["deliveries"] = [];
    for (const request of [message.mention, message.created]) {
      for (let k = 0, n = times(); k < n; k++) deliveries.push((via) => chatwork.send(request, via));
    }
    late.set(tag, () => chatwork.send(message.created));
    return { platform: "chatwork" as const, tag, text, deliveries };
  };

  // Warm-up: one message per platform sent straight to each instance, so the storm meets warm processes (botbuilder
  // has fetched the OpenID metadata, the directory has the workspaces) as a long-running deployment would.
  const warmUp = d().instances.flatMap((instance) =>
    [slackMessage(), teamsMessage(), chatworkMessage()].map((m) => ({ ...m, via: instance.url })),
  );
  planned.push(...warmUp);
  const warm = await fire(
    warmUp.map((m) => () => (m.deliveries[0] as Planned["deliveries"][number])(m.via)),
    warmUp.length,
  );
  await drained(d());
  report("storm warm-up", {
    messages: warmUp.length,
    statuses: Object.fromEntries(warm.statuses),
    roundTrips: warm.latencies.map((l) => l.ms),
  });

  const storm: Planned[] = [
    ...Array.from({ length: slackMessages }, slackMessage),
    ...Array.from({ length: teamsMessages }, teamsMessage),
    ...Array.from({ length: chatworkMessages }, chatworkMessage),
  ];
  planned.push(...storm);
  // Messages in a random order, in blocks of ten whose deliveries are shuffled together: a block's deliveries are all
  // in flight at once, so the copies and twins of one message race each other on different instances.
  const all = chunk(shuffle(storm, random), 10).flatMap((block) =>
    shuffle(
      block.flatMap((m) => m.deliveries.map((deliver) => ({ tag: m.tag, platform: m.platform, deliver }))),
      random,
    ),
  );
  const started = Date.now();
  const { statuses, latencies } = await fire(
    all.map((a) => () => a.deliver()),
    inFlight,
  );
  const ackedIn = Date.now() - started;
  await drained(d(), 180_000);
  const answeredIn = Date.now() - started;

  // Later redeliveries of a quarter of the messages (Slack's third retry, Teams' new-id retry, Chatwork's room
  // webhook again): answered already, they must change nothing.
  const lateOnes = shuffle(storm, random).slice(0, storm.length / 4);
  const lateFired = await fire(
    lateOnes.map((m) => late.get(m.tag) as () => Promise<Delivered>),
    inFlight,
  );
  await drained(d());
  // The queue is empty: nothing is left to post. A moment more for anything a bug might still have in hand.
  await settle(2_000);

  const tags = new Set(planned.map((m) => m.tag));
  const { replies, calls, strays, strayCalls } = countByTag(d(), tags);
  const of = (platform: Planned["platform"]) => storm.filter((m) => m.platform === platform);
  const sum = (messages: Planned[], counts: Map<string, number>) =>
    messages.reduce((total, m) => total + (counts.get(m.tag) ?? 0), 0);
  report("storm", {
    seed,
    messages: storm.length,
    deliveries: all.length,
    statuses: Object.fromEntries(statuses),
    racingMessages: racing(all, latencies),
    ackedInMs: ackedIn,
    answeredInMs: answeredIn,
    lateRedeliveries: lateOnes.length,
    lateStatuses: Object.fromEntries(lateFired.statuses),
  });
  for (const platform of ["slack", "teams", "chatwork"] as const) {
    const mine = latencies.filter((_, i) => all[i]?.platform === platform);
    report(`storm ${platform}`, {
      messages: of(platform).length,
      deliveries: of(platform).reduce((total, m) => total + m.deliveries.length, 0),
      replies: sum(of(platform), replies),
      llmCalls: sum(of(platform), calls),
      roundTripMs: percentiles(mine.map((l) => l.ms)),
      over2500ms: mine.filter((l) => l.ms > 2_500).map((l) => `${l.status}@${l.startedAt}ms`),
    });
  }
  report("storm per instance", {
    deliveries: await perInstance(d(), "resident_deliveries_received_total"),
    replies: await perInstance(d(), "resident_replies_sent_total"),
    llmCalls: llmCallsPerInstance(d()),
  });
  report("storm acks at the instances", await ackLatency(d()));

  expect(Object.fromEntries(warm.statuses), "warm-up deliveries acked").toEqual({ 200: warmUp.length });
  expect(Object.fromEntries(statuses), "storm deliveries acked").toEqual({ 200: all.length });
  expect(Object.fromEntries(lateFired.statuses), "late redeliveries acked").toEqual({ 200: lateOnes.length });
  expect(notExactly(tags, replies), "messages not answered exactly once").toEqual([]);
  expect(notExactly(tags, calls), "messages not given to the LLM exactly once").toEqual([]);
  expect(strays, "replies to nothing we sent").toEqual([]);
  expect(strayCalls, "LLM calls for nothing we sent").toBe(0);

  // Where each platform put its one answer: the message's Slack thread, a reply to one of the message's Teams
  // activities, a Chatwork post quoting the message.
  const slackThreads = d().slack.countsByThread();
  expect([...slackThreadOf.values()].filter((thread) => slackThreads.get(thread) !== 1)).toEqual([]);
  expect(slackThreads.size).toBe(slackThreadOf.size);
  const misaddressed = d().teams.activities.filter((reply) => {
    const tag = tagsIn(String(reply.activity.text))[0] ?? "";
    return !teamsIds.get(tag)?.has(reply.replyToId ?? "");
  });
  expect(misaddressed, "Teams replies not addressed to their message's activity").toEqual([]);
  expect(d().chatwork.rateLimited, "429s answered by the fake Chatwork").toBe(0);
});

function chunk<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** How many messages had two or more of their deliveries in flight at the same moment. */
function racing(all: { tag: string }[], latencies: { ms: number; startedAt: number }[]): number {
  const spans = new Map<string, [number, number][]>();
  all.forEach((a, i) => {
    const l = latencies[i];
    if (!l) return;
    spans.set(a.tag, [...(spans.get(a.tag) ?? []), [l.startedAt, l.startedAt + l.ms]]);
  });
  let count = 0;
  for (const list of spans.values()) {
    const sorted = list.sort((x, y) => x[0] - y[0]);
    if (sorted.some((span, i) => i > 0 && span[0] < Math.max(...sorted.slice(0, i).map((s) => s[1])))) count++;
  }
  return count;
}
