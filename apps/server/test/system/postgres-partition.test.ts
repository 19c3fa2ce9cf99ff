import { settle } from "@resident/testkit";
import { createDatabase, TcpLink, type TestDatabase } from "@resident/testkit/processes";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import {
  countByTag,
  drained,
  firePaced,
  llmCallsSplit,
  notExactly,
  percentiles,
  perInstance,
  storyOf,
  unanswered,
} from "./support/messages.ts";
import { type StormSize, scatteredStorm } from "./support/store-away-storm.ts";

/*
 * One instance loses PostgreSQL while the others keep it: resident-1 reaches the database through a TcpLink, cut
 * for 30 s in the middle of a storm of Slack and Chatwork messages, as a network partition between one host and the
 * database would — its statements are neither answered nor refused. Its answers in hand cannot reach the reply
 * ledger. Every message must still be answered exactly once, and while the partition lasts: no answer may wait for
 * the link to heal. Before the statements had a bound, an answer in hand waited for it; before the cut-off instance
 * stopped taking jobs, a message it kept taking back was sent round with ever longer backoffs.
 */

const size: StormSize = {
  slackMessages: 120,
  chatworkMessages: 40,
  chatworkRooms: 20,
  holdMs: 1_000,
  leadMs: 3_000,
  tailMs: 0,
  seed: Number(process.env.STORM_SEED ?? Date.now() % 1_000_000),
};
const stormMs = 20_000;
const partitionMs = 30_000;

let database: TestDatabase;
let link: TcpLink;
beforeAll(async () => {
  database = await createDatabase();
  link = await TcpLink.start(Number(new URL(database.url).port || 5432));
});
// Registered before the deployment's own, so it runs after the deployment has stopped its instances.
afterAll(async () => {
  await link?.close();
  await database?.drop();
});

const d = useDeployment(() => ({
  instances: 3,
  platforms: ["slack", "chatwork"],
  databaseUrl: database.url,
  instanceEnv: (index): Record<string, string> => (index === 0 ? { DATABASE_URL: link.through(database.url) } : {}),
}));

it("answers every message once, and without waiting for the link, while one instance is cut off from PostgreSQL", {
  timeout: 240_000,
}, async () => {
  const everSent = new Set<string>();
  const { schedule, tags, all } = await scatteredStorm(d(), everSent, size, stormMs);
  const cutOff = d().instances[0];

  d().llm.hold(size.holdMs);
  const firing = firePaced(schedule, 64);
  await settle(size.leadMs);
  link.partition();
  const began = Date.now();
  // The cut is felt: the cut-off instance's database breaker opens, and it takes no jobs until it closes again.
  await vi.waitFor(
    async () => expect(Object.values(await perInstance(d(), "resident_database_up"))).toEqual([0, 1, 1]),
    { timeout: 10_000, interval: 100 },
  );
  const unansweredAt = async (deadline: number) => {
    await vi
      .waitFor(() => expect(unanswered(d(), all)).toEqual([]), {
        timeout: Math.max(0, deadline - Date.now()),
        interval: 250,
      })
      .catch(() => {});
    return unanswered(d(), all);
  };
  // The storm ends 13 s before the link heals: what is still unanswered a second before then waited for the link.
  const waitedForTheLink = await unansweredAt(began + partitionMs - 1_000);
  const answeredAfterMs = Date.now() - began;
  link.heal();
  const fired = await firing;
  d().llm.clearFaults();
  const neverAnswered = await unansweredAt(Date.now() + 60_000);
  await drained(d(), 60_000);
  await settle(2_000);

  const { replies, calls, strays } = countByTag(d(), everSent);
  const { its: cutOffCalls, others: otherCalls } = llmCallsSplit(d(), all, cutOff);
  const nonOk = fired.latencies.filter((l) => l.status < 200 || l.status >= 300);
  const sum = (counts: Map<string, number>) => [...all].reduce((n, t) => n + (counts.get(t) ?? 0), 0);
  report("postgres partition", {
    seed: size.seed,
    partitionMs,
    slackMessages: tags.slack.size,
    chatworkMessages: tags.chatwork.size,
    deliveries: schedule.length,
    non2xx: nonOk.length,
    statuses: Object.fromEntries(fired.statuses),
    replies: sum(replies),
    llmCalls: sum(calls),
    cutOffLlmCalls: sum(cutOffCalls),
    waitedForTheLink: waitedForTheLink.length,
    allAnsweredAfterMs: waitedForTheLink.length === 0 ? answeredAfterMs : "not within the partition",
    ackMs: percentiles(fired.latencies.map((l) => l.ms)),
  });

  // Who sent what, when (ms after the partition began), for each message that waited for the link.
  if (waitedForTheLink.length > 0) console.log(`[waited for the link]\n${storyOf(d(), waitedForTheLink, began)}`);
  expect(
    nonOk.map((l) => l.status),
    "deliveries not acked 2xx",
  ).toEqual([]);
  expect(neverAnswered, "messages never answered").toEqual([]);
  expect(waitedForTheLink, "messages answered only once the link healed").toEqual([]);
  expect(notExactly(all, replies), "messages not answered exactly once").toEqual([]);
  expect(strays, "replies to nothing we sent").toEqual([]);
  // One LLM call per message; only an answer the cut-off instance had asked for may be asked once more, elsewhere.
  expect(
    [...all].filter((t) => (cutOffCalls.get(t) ?? 0) > 1 || (otherCalls.get(t) ?? 0) > 1 || !calls.has(t)),
    "messages whose LLM calls were not one, or one by the cut-off instance and one by another",
  ).toEqual([]);
});
