import { randomBytes } from "node:crypto";
import { utcDay } from "@resident/core";
import { deliver } from "@resident/testkit";
import {
  appMention,
  connectSlackWorkspace,
  type FakeSlackPost,
  feedbackClick,
  type SlackWorkspace,
  signSlackRequest,
} from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTwoInstances, type TwoInstances } from "./support/two-instances.ts";

/*
 * Feedback on answers through two real instances of one deployment (one Redis, one PostgreSQL): the buttons under
 * every Slack answer, streamed or posted, the answer's text kept; one click delivered three times at once to both
 * instances counted once, cluster-wide; a changed vote moving the count; bad input refused and changing nothing.
 */

let two: TwoInstances;
beforeAll(async () => {
  two = await startTwoInstances();
}, 120_000);
afterAll(() => two?.close());

type Daily = { workspaceId: string; days: { day: string; positive: number; negative: number }[] };
async function answered(ws: SlackWorkspace, question: string): Promise<FakeSlackPost> {
  const mention = appMention(ws.bot, question);
  expect((await ws.send(mention)).status).toBe(200);
  return vi.waitFor(
    () => {
      const [post] = two.one.slack.postsInThread(mention.event.channel, mention.event.ts);
      expect(post?.streaming ?? false).toBe(false);
      expect(post?.metadata).toBeDefined();
      return post as FakeSlackPost;
    },
    { timeout: 30_000, interval: 50 },
  );
}

async function feedbackOf(ws: SlackWorkspace, baseUrl: string): Promise<Daily> {
  const response = await fetch(`${baseUrl}/admin/api/tenants/${ws.tenantId}/workspaces/${ws.workspaceId}/feedback`, {
    headers: { authorization: `Bearer ${ws.tenantToken}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Daily;
}

const todayOf = async (ws: SlackWorkspace, baseUrl = two.two.url) =>
  (await feedbackOf(ws, baseUrl)).days.find((d) => d.day === utcDay(Date.now()));

/** The click's form with its action's value changed. */
function withVote(form: string, value: string): string {
  const payload = JSON.parse(new URLSearchParams(form).get("payload") ?? "{}");
  payload.actions[0].value = value;
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

describe("feedback on Slack answers, across two instances", () => {
  it("puts the buttons under a posted answer and counts one click delivered three times at once, once", async () => {
    const ws = await connectSlackWorkspace(two.one.url, two.one.operator, two.one.slack, { streaming: false });
    const post = await answered(ws, "was this posted with buttons?");
    expect(post.text).toBe("answer to: was this posted with buttons?");
    expect(post.blocks?.[0]).toEqual({ type: "markdown", text: post.text });
    expect(post.blocks?.[1]).toMatchObject({ type: "context_actions", elements: [{ type: "feedback_buttons" }] });

    const click = feedbackClick(post, { vote: "positive", user: "U0VOTER1" });
    const acks = await Promise.all([two.one.url, two.two.url, two.one.url].map((via) => ws.interact(click, via)));
    console.log(`[feedback 3x] statuses=${acks.map((a) => a.status)} bodies=${acks.map((a) => a.body).join(" ")}`);
    expect(acks.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(acks.filter((a) => !a.body.includes("duplicate"))).toHaveLength(1);
    // The count is the database's: both instances answer the same.
    expect(await todayOf(ws, two.one.url)).toMatchObject({ positive: 1, negative: 0 });
    expect(await todayOf(ws, two.two.url)).toMatchObject({ positive: 1, negative: 0 });
    const week = await feedbackOf(ws, two.one.url);
    expect(week.days).toHaveLength(7);
    expect(week.days.reduce((n, d) => n + d.positive + d.negative, 0)).toBe(1);

    // The same person changes their mind: one vote, now negative; another person's vote counts beside it.
    await ws.interact(feedbackClick(post, { vote: "negative", user: "U0VOTER1" }), two.two.url);
    await ws.interact(feedbackClick(post, { vote: "positive", user: "U0VOTER2" }), two.one.url);
    expect(await todayOf(ws)).toMatchObject({ positive: 1, negative: 1 });
  }, 90_000);

  it("appends the buttons to a streamed answer when its stream stops, the streamed text as it was", async () => {
    const ws = await connectSlackWorkspace(two.one.url, two.one.operator, two.one.slack);
    const post = await answered(ws, "was this streamed with buttons?");
    expect(two.one.slack.callsTo("chat.startStream").length).toBeGreaterThan(0);
    expect(post.text).toBe("answer to: was this streamed with buttons?");
    expect(post.blocks).toEqual([expect.objectContaining({ type: "context_actions" })]);
    const click = feedbackClick(post, { vote: "negative" });
    await Promise.all([ws.interact(click, two.one.url), ws.interact(click, two.two.url)]);
    expect(await todayOf(ws)).toMatchObject({ positive: 0, negative: 1 });
  }, 90_000);

  it("refuses bad input with 401, 400, 404 and 413, and counts nothing", async () => {
    const ws = await connectSlackWorkspace(two.one.url, two.one.operator, two.one.slack, { streaming: false });
    const post = await answered(ws, "can a forged click count?");
    const click = feedbackClick(post, { vote: "positive" });
    const form = "application/x-www-form-urlencoded";
    const signed = (body: string, secret = ws.signingSecret) =>
      signSlackRequest({ signingSecret: secret, body, contentType: form });
    const interactions = ws.interactionUrl;
    const unknown = interactions.replace(ws.workspaceId, `ws_${randomBytes(6).toString("hex")}`);
    const refusals = await Promise.all([
      deliver(interactions, signed(click, randomBytes(16).toString("hex"))),
      deliver(interactions, { ...signed(click), headers: { "content-type": form } }),
      deliver(interactions, signed("payload=%7Bnot-json")),
      deliver(interactions, signed(withVote(click, "delighted"))),
      deliver(interactions, signSlackRequest({ signingSecret: ws.signingSecret, body: click })),
      deliver(unknown, signed(click)),
      deliver(interactions, signed(`${click}&pad=${"x".repeat(1024 * 1024)}`)),
    ]);
    expect(refusals.map((r) => r.status)).toEqual([401, 401, 400, 400, 400, 404, 413]);
    // Not on the events URL either: there a click is no event.
    expect((await deliver(ws.webhookUrl, signed(click))).status).toBe(400);
    expect(await todayOf(ws)).toMatchObject({ positive: 0, negative: 0 });
    // The genuine click still counts: nothing above took its place.
    expect((await ws.interact(click)).status).toBe(200);
    expect(await todayOf(ws)).toMatchObject({ positive: 1, negative: 0 });
  }, 90_000);
});
