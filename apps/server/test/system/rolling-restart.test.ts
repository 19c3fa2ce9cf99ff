import { settle } from "@resident/testkit";
import type { DeployedInstance } from "@resident/testkit/deployment";
import { appMention, twinOf } from "@resident/testkit/slack";
import { expect, it } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { countByTag, drained, notExactly, question } from "./support/messages.ts";

/*
 * A rolling restart, the deploy every release makes: each instance in turn stopped with SIGTERM while a steady storm
 * of messages and their twins comes through nginx, then started again. Every delivery must be acked 2xx — Chatwork
 * does not redeliver, so a refused delivery there is a message lost — and every message answered once, with the
 * LLM asked once: a graceful stop finishes the answers it holds and redoes nothing.
 */

/** A message (mention + twin) this often: ~180 deliveries a second, enough that nginx reuses connections mid-close. */
const everyMs = 10;
const holdMs = 100;

const d = useDeployment({ instances: 3 });

it("acks every delivery and answers every message once while each instance is restarted in turn", {
  timeout: 240_000,
}, async () => {
  const slack = await d().connectSlack({ streaming: false });
  d().llm.hold(holdMs);
  const tags = new Set<string>();
  const acks: Promise<number>[] = [];
  let restarting = true;
  const storm = (async () => {
    while (restarting) {
      const { tag, text } = question("rr");
      tags.add(tag);
      const mention = appMention(slack.bot, text);
      for (const body of [mention, twinOf(mention)]) {
        acks.push(
          slack.send(body).then(
            (delivered) => delivered.status,
            () => -1,
          ),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();

  const answersInHand = (instance: DeployedInstance) =>
    d()
      .llm.calls()
      .filter((call) => call.status === undefined && d().instanceOf(call) === instance).length;
  const stops: { name: string; answersInHand: number; exitCode: number | null | undefined }[] = [];
  for (const instance of d().instances) {
    await settle(1_500);
    const inHand = answersInHand(instance);
    const exitCode = await instance.stop(30_000);
    stops.push({ name: instance.name, answersInHand: inHand, exitCode });
    await instance.start("readyz");
  }
  await settle(1_500);
  restarting = false;
  await storm;
  const statuses = await Promise.all(acks);
  await drained(d(), 60_000);
  await settle(2_000);

  const { replies, calls, strays } = countByTag(d(), tags);
  const refused = statuses.filter((status) => status < 200 || status > 299);
  report("rolling restart", {
    messages: tags.size,
    deliveries: statuses.length,
    refused: refused.length,
    stops: stops.map(({ name, answersInHand, exitCode }) => `${name}:${answersInHand} in hand, exit ${exitCode}`),
  });
  expect(refused, "deliveries not acked 2xx").toEqual([]);
  expect(
    stops.filter((stop) => stop.exitCode !== 0),
    "stops that did not finish cleanly",
  ).toEqual([]);
  expect(
    stops.reduce((sum, stop) => sum + stop.answersInHand, 0),
    "answers in hand at the stops",
  ).toBeGreaterThan(0);
  expect(notExactly(tags, replies), "messages not answered exactly once").toEqual([]);
  expect(notExactly(tags, calls), "messages whose LLM call was not made once").toEqual([]);
  expect(strays, "replies to nothing we sent").toEqual([]);
});
