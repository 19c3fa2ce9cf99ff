import { eventually, settle } from "@resident/testkit";
import { appMention, twinOf } from "@resident/testkit/slack";
import { expect, it } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { countByTag, drained, fire, question } from "./support/messages.ts";

/*
 * Redis dies mid-run and comes back on the same port; no instance is restarted. A fail-closed workspace answers 503
 * while it is away (Slack retries later) and every message is answered exactly once after; a fail-open workspace
 * keeps answering from each instance's own memory, at the price of duplicates when one message's deliveries reach
 * different instances — which this test counts and prints rather than pretends away.
 */

const perWorkspace = 10;

const d = useDeployment({ instances: 3, platforms: ["slack"] });

it("fails closed or open per workspace while Redis is away, and heals when it returns", {
  timeout: 180_000,
}, async () => {
  const closed = await d().connectSlack();
  const open = await d().connectSlack();
  await closed.updateSettings({ failMode: "closed" });
  await open.updateSettings({ failMode: "open" });
  const settings = async (ws: typeof open) =>
    (
      await ws.tenantAdmin.expect<{ settings: { failMode: string } }>(
        200,
        "GET",
        `/tenants/${ws.tenantId}/workspaces/${ws.workspaceId}`,
      )
    ).settings.failMode;
  expect([await settings(closed), await settings(open)]).toEqual(["closed", "open"]);

  const message = (ws: typeof open, prefix: string) => {
    const { tag, text } = question(prefix);
    const mention = appMention(ws.bot, text);
    return { tag, mention, twin: twinOf(mention) };
  };
  // Before the outage both are answered through Redis. (That every instance knows the new fail modes shows below:
  // an instance with a stale setting would refuse an open delivery with 503 during the outage.)
  const before = [message(closed, "rb"), message(open, "rb")];
  expect((await closed.send(before[0]?.mention)).status).toBe(200);
  expect((await open.send(before[1]?.mention)).status).toBe(200);
  const beforeTags = new Set(before.map((m) => m.tag));
  await eventually(() => expect(countByTag(d(), beforeTags).replies.size).toBe(2));

  await d().redis.kill();
  await eventually(async () => expect(await d().statuses("/readyz")).toEqual([503, 503, 503]), { timeoutMs: 15_000 });
  // Each instance's own /readyz, as an orchestrator reads it: nginx keeps /readyz from the outside (404).
  const readyDuring = (await d().statuses("/readyz"))[0];
  expect((await fetch(`${d().url}/readyz`)).status).toBe(404);

  // During the outage: the closed workspace's messages (mention and twin) are refused; the open one's (mention and
  // twin, each delivered twice, as Slack's redeliveries may reach other instances) are acked and answered.
  const closedMessages = Array.from({ length: perWorkspace }, () => message(closed, "rc"));
  const openMessages = Array.from({ length: perWorkspace }, () => message(open, "ro"));
  const duringClosed = await fire(
    closedMessages.flatMap((m) => [() => closed.send(m.mention), () => closed.send(m.twin)]),
    16,
  );
  const duringOpen = await fire(
    openMessages.flatMap((m) => [
      () => open.send(m.mention),
      () => open.send(m.twin),
      () => open.send(m.mention, { retryNum: 1, retryReason: "http_timeout" }),
      () => open.send(m.twin, { retryNum: 1, retryReason: "http_timeout" }),
    ]),
    16,
  );
  const openTags = new Set(openMessages.map((m) => m.tag));
  await eventually(() => expect(countByTag(d(), openTags).replies.size).toBe(perWorkspace), { timeoutMs: 30_000 });
  const closedTags = new Set(closedMessages.map((m) => m.tag));
  const closedAnsweredDuring = countByTag(d(), closedTags).replies.size;

  // Redis returns on the same port; the same connections heal, no instance restarts.
  const pids = d().instances.map((instance) => instance.pid);
  await d().redis.restart();
  const back = Date.now();
  await eventually(async () => expect(await d().statuses("/readyz")).toEqual([200, 200, 200]), { timeoutMs: 30_000 });
  const healedInMs = Date.now() - back;
  const readyAfter = (await d().statuses("/readyz"))[0];
  expect(d().instances.map((instance) => instance.pid)).toEqual(pids);

  // Slack retries what it was refused, up to three times, each retry only of a delivery not acked 200: every delivery
  // again as its first retry (a second copy of each mention racing it), then what was still refused.
  type Retry = { body: (typeof closedMessages)[number]["mention"]; retryNum: number };
  let pending: Retry[] = closedMessages.flatMap((m) => [
    { body: m.mention, retryNum: 1 },
    { body: m.twin, retryNum: 1 },
    { body: m.mention, retryNum: 2 },
  ]);
  const retryWaves: Record<string, number>[] = [];
  for (let wave = 1; wave <= 3 && pending.length > 0; wave++) {
    // Slack waits a minute, then five; here the longest pause between two reconnection attempts (2 s) will do.
    if (wave > 1) await settle(2_000);
    const sent = await fire(
      pending.map((r) => () => closed.send(r.body, { retryNum: r.retryNum, retryReason: "http_error" })),
      16,
    );
    retryWaves.push(Object.fromEntries(sent.statuses));
    pending = pending
      .filter((_, i) => sent.latencies[i]?.status !== 200)
      .map((r) => ({ ...r, retryNum: Math.min(3, r.retryNum + 1) }));
  }
  await eventually(() => expect(countByTag(d(), closedTags).replies.size).toBe(perWorkspace), { timeoutMs: 60_000 });
  await drained(d());
  await settle(2_000);

  const closedCounts = countByTag(d(), closedTags);
  const openCounts = countByTag(d(), openTags);
  const openReplies = [...openTags].map((t) => openCounts.replies.get(t) ?? 0);
  report("redis outage", {
    readyzDuring: readyDuring,
    readyzAfter: readyAfter,
    healedInMs,
    restartedAt: back,
    readyAt: back + healedInMs,
    closedDeliveriesDuring: Object.fromEntries(duringClosed.statuses),
    closedAnsweredDuring,
    closedRetryWaves: retryWaves,
    closedReplies: [...closedTags].map((t) => closedCounts.replies.get(t) ?? 0).join(","),
    closedLlmCalls: [...closedTags].map((t) => closedCounts.calls.get(t) ?? 0).join(","),
    openDeliveriesDuring: Object.fromEntries(duringOpen.statuses),
    openReplies: openReplies.join(","),
    openAnsweredTwice: openReplies.filter((n) => n === 2).length,
    openAnsweredMoreThanTwice: openReplies.filter((n) => n > 2).length,
  });

  expect(readyDuring).toBe(503);
  expect(readyAfter).toBe(200);
  expect(Object.fromEntries(duringClosed.statuses), "closed: refused while Redis is away").toEqual({
    503: 2 * perWorkspace,
  });
  expect(closedAnsweredDuring, "closed: nothing answered while Redis is away").toBe(0);
  expect(pending, "closed: deliveries still refused after Slack's last retry").toEqual([]);
  expect(
    [...closedTags].filter((t) => closedCounts.replies.get(t) !== 1),
    "closed: answered exactly once",
  ).toEqual([]);
  expect(
    [...closedTags].filter((t) => closedCounts.calls.get(t) !== 1),
    "closed: one LLM call each",
  ).toEqual([]);
  expect(Object.fromEntries(duringOpen.statuses), "open: acked while Redis is away").toEqual({
    200: 4 * perWorkspace,
  });
  expect(
    openReplies.filter((n) => n < 1),
    "open: every message answered at least once",
  ).toEqual([]);
  const everything = countByTag(d(), new Set([...beforeTags, ...closedTags, ...openTags]));
  expect(everything.strays, "replies to nothing we sent").toEqual([]);
});
