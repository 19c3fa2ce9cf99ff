import { settle } from "@resident/testkit";
import { type DeployedInstance, type Deployment, seededRandom } from "@resident/testkit/deployment";
import { appMention, twinOf } from "@resident/testkit/slack";
import { expect, vi } from "vitest";
import { report } from "./deployment.ts";
import {
  countByTag,
  drained,
  firePaced,
  llmCallsSplit,
  llmTag,
  notExactly,
  percentiles,
  perInstance,
  question,
  type Scheduled,
  storyOf,
  unanswered,
} from "./messages.ts";

/*
 * A storm through something that takes Redis away from some or all instances, under the default fail mode: the
 * PostgreSQL lane takes deliveries in where Redis is away, and the reply ledger, which lives in PostgreSQL, keeps
 * every message single across the switch both ways (packages/core/README.md, "When a store is away").
 *
 * Each message's copies (Slack: app_mention + message, each once or twice, some marked as retries; Chatwork:
 * mention_to_me + message_created, once each, as Chatwork never retries) are scattered over the whole storm, so
 * many straddle a switch: a twin taken in by PostgreSQL for a message Redis had queued just before, a redelivery
 * taken in by Redis for a message PostgreSQL queued during the outage. The fake LLM is slow, so jobs are
 * mid-answer when Redis goes; an instance may be killed with SIGKILL in the middle of the outage. The same scattered
 * storm serves the PostgreSQL partition test.
 */

export interface StoreAway {
  name: string;
  ms: number;
  begin(): Promise<void> | void;
  end(): Promise<void> | void;
  /** `resident_shared_store_up`, instance by instance, once the outage is felt: 0 where Redis is away. */
  storeUp: number[];
  /** The instance killed halfway through the outage (undefined: none), chosen then; `inFlight` counts its LLM calls. */
  victim?: (inFlight: (instance: DeployedInstance) => number) => DeployedInstance | undefined;
}

export interface StormSize {
  slackMessages: number;
  chatworkMessages: number;
  chatworkRooms: number;
  /** How long the fake LLM holds each answer. */
  holdMs: number;
  /** Storm before the outage, and after it. */
  leadMs: number;
  tailMs: number;
  seed: number;
}

/** Kills the instance with the most answers in flight. */
export const busiest =
  (d: Deployment) =>
  (inFlight: (instance: DeployedInstance) => number): DeployedInstance | undefined =>
    [...d.instances].sort((a, b) => inFlight(b) - inFlight(a))[0];

/**
 * The storm's schedule over `stormMs`, each message's copies at random moments (seeded by `size.seed` and `stormMs`),
 * after each instance has met both workspaces once, as a running deployment has (and the directory caches them).
 * Every tag it sends joins `everSent`.
 */
export async function scatteredStorm(d: Deployment, everSent: Set<string>, size: StormSize, stormMs: number) {
  const random = seededRandom(size.seed + stormMs);
  const at = () => Math.floor(random() * stormMs);
  const [slack, chatwork] = await Promise.all([d.connectSlack(), d.connectChatwork({ rooms: size.chatworkRooms })]);

  const tags = { slack: new Set<string>(), chatwork: new Set<string>() };
  for (const instance of d.instances) {
    const { tag, text } = question("ow");
    tags.slack.add(tag);
    expect((await slack.send(appMention(slack.bot, text), {}, instance.url)).status).toBe(200);
  }
  await drained(d);

  const schedule: (Scheduled & { platform: "slack" | "chatwork" })[] = [];
  for (let i = 0; i < size.slackMessages; i++) {
    const { tag, text } = question("os");
    tags.slack.add(tag);
    const mention = appMention(slack.bot, text);
    for (const body of [mention, twinOf(mention)]) {
      for (let k = 0, copies = 1 + Math.floor(random() * 2); k < copies; k++) {
        const retry = k > 0 && random() < 0.5 ? { retryNum: k, retryReason: "http_timeout" } : {};
        schedule.push({ platform: "slack", at: at(), deliver: () => slack.send(body, retry) });
      }
    }
  }
  for (let i = 0; i < size.chatworkMessages; i++) {
    const { tag, text } = question("oc");
    tags.chatwork.add(tag);
    const message = chatwork.message(text, { roomId: chatwork.rooms[i % size.chatworkRooms] });
    for (const request of [message.mention, message.created]) {
      schedule.push({ platform: "chatwork", at: at(), deliver: () => chatwork.send(request) });
    }
  }
  const all = new Set([...tags.slack, ...tags.chatwork]);
  for (const tag of all) everSent.add(tag);
  // In firing order, so that the i-th round trip firePaced reports is the i-th delivery here.
  schedule.sort((a, b) => a.at - b.at);
  return { schedule, tags, all };
}

/**
 * One storm through `outage` on deployment `d`; `everSent` gathers the tags of every storm of the file (what the
 * fakes may carry). Asserts every delivery acked 2xx, every message answered exactly once, one LLM call a message
 * (but for an answer the killed instance had asked for, asked once more by a survivor).
 */
export async function stormThrough(d: Deployment, everSent: Set<string>, size: StormSize, outage: StoreAway) {
  const { schedule, tags, all } = await scatteredStorm(d, everSent, size, size.leadMs + outage.ms + size.tailMs);
  const standbyBefore = await perInstance(d, "resident_standby_passes_total");
  d.llm.hold(size.holdMs);
  const firing = firePaced(schedule, 64);
  await settle(size.leadMs);
  await outage.begin();
  const began = Date.now();
  // Once every instance has felt the outage, each stays ready: it takes deliveries in through PostgreSQL.
  await vi.waitFor(
    async () => expect(Object.values(await perInstance(d, "resident_shared_store_up"))).toEqual(outage.storeUp),
    { timeout: 10_000, interval: 100 },
  );
  const readyDuring = await d.statuses("/readyz");

  await settle(outage.ms / 2);
  // This storm's calls only: an earlier storm's victim left calls that stay open for ever.
  const inFlight = (instance: DeployedInstance) =>
    d.llm
      .calls()
      .filter((call) => call.status === undefined && d.instanceOf(call) === instance && all.has(llmTag(call) ?? ""))
      .length;
  const victim = outage.victim?.(inFlight);
  // A dead instance's counters die with it: the deliveries it took in through PostgreSQL are read before it dies.
  const standbyAtKill = victim ? await perInstance(d, "resident_standby_passes_total") : {};
  const inFlightAtKill = victim ? inFlight(victim) : 0;
  await victim?.kill();
  const killedAt = Date.now() - began;

  await settle(Math.max(0, outage.ms - (Date.now() - began)));
  await outage.end();
  const endedAt = Date.now() - began;
  const fired = await firing;
  d.llm.clearFaults();

  await vi.waitFor(
    () => {
      const missing = unanswered(d, all);
      if (missing.length > 0) throw new Error(`${missing.length} messages unanswered: ${missing.slice(0, 5)}`);
    },
    { timeout: 150_000, interval: 250 },
  );
  await drained(d, 90_000);
  await settle(2_000);

  // The earlier storms' replies are at the fakes too: counted, but only this storm's messages are checked.
  const { replies, calls, strays } = countByTag(d, everSent);
  // Whose LLM calls: the victim's were all made before it died, though the fake may read a request the victim sent
  // just before its death only after it (so "in flight at the kill" cannot be read off the fake at the kill).
  const { its: victimCalls, others: survivorCalls } = llmCallsSplit(d, all, victim);
  const standbyAfter = { ...(await perInstance(d, "resident_standby_passes_total")), ...standbyAtKill };
  const standbyPasses = Object.fromEntries(
    Object.entries(standbyAfter).map(([name, v]) => [name, v - (standbyBefore[name] ?? 0)]),
  );
  await victim?.restart({ kill: true, readiness: "readyz" });
  const sum = (counts: Map<string, number>, of: Set<string>) => [...of].reduce((n, t) => n + (counts.get(t) ?? 0), 0);
  const nonOk = fired.latencies.filter((l) => l.status < 200 || l.status >= 300);
  const ackMs = (platform: "slack" | "chatwork") =>
    percentiles(fired.latencies.filter((_, i) => schedule[i]?.platform === platform).map((l) => l.ms));
  report(outage.name, {
    seed: size.seed,
    outageMs: outage.ms,
    slackMessages: tags.slack.size,
    chatworkMessages: tags.chatwork.size,
    deliveries: schedule.length,
    non2xx: nonOk.length,
    statuses: Object.fromEntries(fired.statuses),
    slackReplies: sum(replies, tags.slack),
    chatworkReplies: sum(replies, tags.chatwork),
    llmCalls: sum(calls, all),
    killed: victim?.name ?? "none",
    inFlightAtKill,
    victimLlmCalls: sum(victimCalls, all),
    takenInByPostgres: standbyPasses,
    readyzDuring: readyDuring,
    slackAckMs: ackMs("slack"),
    chatworkAckMs: ackMs("chatwork"),
  });

  expect(readyDuring, "ready while Redis is away").toEqual(d.instances.map(() => 200));
  // Where Redis was away, deliveries were taken in through PostgreSQL: the outage was felt there.
  const away = d.instances.filter((_, i) => outage.storeUp[i] === 0).map((instance) => instance.name);
  expect(
    away.filter((name) => !((standbyPasses[name] ?? 0) > 0)),
    "instances cut off from Redis that took nothing in through PostgreSQL",
  ).toEqual([]);
  expect(
    nonOk.map((l) => l.status),
    "deliveries not acked 2xx",
  ).toEqual([]);
  const notOnce = notExactly(all, replies);
  // Who sent what, when (ms after the outage began), for each message not answered once.
  if (notOnce.length > 0) {
    const story = storyOf(
      d,
      notOnce.map((t) => t.split("×")[0] ?? t),
      began,
    );
    console.log(`[not once] victim=${victim?.name} killedAt=${killedAt} endedAt=${endedAt}\n${story}`);
  }
  expect(notOnce, "messages not answered exactly once").toEqual([]);
  expect(strays, "replies to nothing we sent").toEqual([]);
  // One LLM call per message; only an answer the killed instance had asked for is asked for once more, by a survivor.
  expect(
    [...all].filter((t) => (victimCalls.get(t) ?? 0) > 1 || (survivorCalls.get(t) ?? 0) > 1 || !calls.has(t)),
    "messages whose LLM calls were not one, or one by the killed instance and one by a survivor",
  ).toEqual([]);
}
