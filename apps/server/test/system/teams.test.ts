import { deliver, settle } from "@resident/testkit";
import { generateSigningKey, type TeamsActivity } from "@resident/testkit/teams";
import { expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { countByTag, drained, perInstance, question, tagsIn } from "./support/messages.ts";

/*
 * Teams through nginx to three instances (issue 4): one signed activity raced at every instance, Teams' retry of it
 * under a new activity id, and deliveries whose token is missing or wrong. botbuilder validates the real JWTs against
 * the fake Bot Framework's OpenID metadata and JWKS; the fake connector records every reply.
 */

const d = useDeployment({ instances: 3, platforms: ["teams"] });

const repliesTo = (tag: string) =>
  d().teams.activities.filter((reply) => tagsIn(String(reply.activity.text)).includes(tag));
const received = () => perInstance(d(), "resident_deliveries_received_total", { platform: "teams" });
const increase = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([name, n]) => [name, n - (before[name] ?? 0)]));

it("answers one activity raced at all three instances once, and not again for Teams' retry under a new id", async () => {
  const teams = await d().connectTeams();
  const { tag, text } = question("ta");
  const activity = teams.message(text);
  const request = await teams.request(activity);

  const before = await received();
  const acks = await Promise.all([
    ...Array.from({ length: 6 }, () => teams.send(request)),
    ...d().instances.map((instance) => teams.send(request, instance.url)),
  ]);
  const perInstanceDeliveries = increase(before, await received());
  expect(acks.map((a) => a.status)).toEqual(Array(9).fill(200));
  // The race really was across processes: every instance took at least one of the copies.
  expect(Object.values(perInstanceDeliveries).every((n) => n >= 1)).toBe(true);

  await vi.waitFor(() => expect(repliesTo(tag)).toHaveLength(1), { timeout: 20_000, interval: 50 });
  // Teams retries an activity it thinks went unanswered under a new id and timestamp, the same text, inside the window.
  const retry = teams.retryOf(activity);
  const retryAcks = await Promise.all([teams.send(retry), teams.send(retry, d().instances[1]?.url)]);
  expect(retryAcks.map((a) => a.status)).toEqual([200, 200]);
  await drained(d());
  await settle(1_500);

  const replies = repliesTo(tag);
  const llmCalls = countByTag(d(), new Set([tag])).calls.get(tag) ?? 0;
  report("teams race", { deliveries: 11, perInstanceDeliveries, replies: replies.length, llmCalls });
  expect(replies).toHaveLength(1);
  expect(replies[0]).toMatchObject({
    conversationId: activity.conversation.id,
    replyToId: activity.id,
    appId: teams.appId,
  });
  expect(replies[0]?.activity).toMatchObject({ type: "message", replyToId: activity.id });
  expect(llmCalls).toBe(1);
});

it("answers once when the original and its new-id retry race each other on different instances", async () => {
  const teams = await d().connectTeams();
  const { tag, text } = question("tr");
  const activity = teams.message(text, { conversationType: "personal", conversationId: `a:1chat-${tag}` });
  const retry = teams.retryOf(activity);
  const [a, b, c] = d().instances;
  const acks = await Promise.all([
    teams.send(activity, a?.url),
    teams.send(retry, b?.url),
    teams.send(activity, c?.url),
    teams.send(retry),
  ]);
  expect(acks.map((ack) => ack.status)).toEqual([200, 200, 200, 200]);
  await vi.waitFor(() => expect(repliesTo(tag)).toHaveLength(1), { timeout: 20_000, interval: 50 });
  await drained(d());
  await settle(1_500);
  const replies = repliesTo(tag);
  report("teams retry race", {
    replies: replies.length,
    answered: replies[0]?.replyToId === activity.id ? "original" : "retry",
  });
  expect(replies).toHaveLength(1);
  expect([activity.id, retry.id]).toContain(replies[0]?.replyToId);
  expect(replies[0]?.conversationId).toBe(activity.conversation.id);
});

it("refuses missing, forged, expired and misaddressed tokens with 401 at every instance, an unknown workspace with 404, and sends nothing", async () => {
  const teams = await d().connectTeams();
  const other = await d().connectTeams();
  const forger = await generateSigningKey("fake-bot-framework", ["msteams"]);
  const cases: [string, (activity: TeamsActivity) => Promise<Parameters<typeof deliver>[1]>][] = [
    [
      "no token",
      async (a) => ({
        rawBody: Buffer.from(JSON.stringify(a)),
        headers: { "content-type": "application/json" },
        query: {},
      }),
    ],
    ["not a JWT", async (a) => withToken(await teams.request(a), "Bearer not.a.jwt")],
    ["forged signature", (a) => teams.request(a, { key: forger.privateKey })],
    ["expired an hour ago", (a) => teams.request(a, { expiresIn: -3_600 })],
    ["another bot's audience", (a) => teams.request(a, { appId: other.appId })],
    ["another issuer", (a) => teams.request(a, { issuer: "https://api.botframework.evil" })],
    ["another serviceUrl claim", (a) => teams.request(a, { serviceUrl: "https://smba.trafficmanager.evil/amer/" })],
  ];
  const tags: string[] = [];
  const statuses: Record<string, number[]> = {};
  for (const [name, build] of cases) {
    const { tag, text } = question("tx");
    tags.push(tag);
    const request = await build(teams.message(text));
    const targets = [d().url, ...d().instances.map((instance) => instance.url)];
    statuses[name] = (await Promise.all(targets.map((base) => deliver(`${base}${teams.webhookPath}`, request)))).map(
      (response) => response.status,
    );
  }
  const { tag, text } = question("tx");
  tags.push(tag);
  const unknownWorkspace = await deliver(
    `${d().url}/teams/messages/ws_doesnotexist`,
    await teams.request(teams.message(text)),
  );
  await settle(1_500);
  const { replies, calls } = countByTag(d(), new Set(tags));
  report("teams refused", {
    statuses,
    unknownWorkspace: unknownWorkspace.status,
    replies: replies.size,
    llmCalls: calls.size,
  });
  for (const [name] of cases) expect(statuses[name], name).toEqual([401, 401, 401, 401]);
  expect(unknownWorkspace.status).toBe(404);
  expect(replies.size).toBe(0);
  expect(calls.size).toBe(0);
});

function withToken(request: Parameters<typeof deliver>[1], authorization: string): Parameters<typeof deliver>[1] {
  return { ...request, headers: { ...request.headers, authorization } };
}
