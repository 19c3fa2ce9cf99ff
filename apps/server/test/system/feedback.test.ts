import { utcDay } from "@resident/core";
import { appMention, type FakeSlackPost, feedbackClick } from "@resident/testkit/slack";
import { feedbackInvoke, generateSigningKey, type RecordedActivity } from "@resident/testkit/teams";
import { expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { question } from "./support/messages.ts";

/*
 * Feedback clicks across three instances behind nginx: one Slack click raced at every instance and through the
 * front door, one Teams submitAction invoke delivered twice to different instances — each counted once, in the
 * database every instance shares. botbuilder validates the invokes' real JWTs like any Teams activity.
 */

const d = useDeployment({ instances: 3, platforms: ["slack", "teams"] });

type Daily = { days: { day: string; positive: number; negative: number }[] };
const todayOf = async (tenantId: string, workspaceId: string) => {
  const { days } = await d().operator.expect<Daily>(
    200,
    "GET",
    `/tenants/${tenantId}/workspaces/${workspaceId}/feedback`,
  );
  return days.find((day) => day.day === utcDay(Date.now()));
};

it("Slack: one click raced at every instance and through nginx is counted once", async () => {
  const slack = await d().connectSlack({ streaming: false });
  const mention = appMention(slack.bot, question("fb").text);
  expect((await slack.send(mention)).status).toBe(200);
  const post = await vi.waitFor(
    () => {
      const [answer] = d().slack.postsInThread(mention.event.channel, mention.event.ts);
      expect(answer?.blocks).toBeDefined();
      return answer as FakeSlackPost;
    },
    { timeout: 30_000, interval: 50 },
  );
  const click = feedbackClick(post, { vote: "positive" });
  const acks = await Promise.all([
    ...[1, 2, 3].map(() => slack.interact(click)),
    ...d().instances.map((instance) => slack.interact(click, instance.url)),
  ]);
  const counted = acks.filter((ack) => !ack.body.includes("duplicate")).length;
  const today = await todayOf(slack.tenantId, slack.workspaceId);
  report("feedback slack", { deliveries: acks.length, statuses: acks.map((a) => a.status), counted, today });
  expect(acks.map((a) => a.status)).toEqual(Array(6).fill(200));
  expect(counted).toBe(1);
  expect(today).toMatchObject({ positive: 1, negative: 0 });
});

it("Teams: the answer carries the feedback loop; a submitAction invoke delivered twice counts once, answered 200", async () => {
  const teams = await d().connectTeams();
  const activity = teams.message(question("ft").text, { conversationType: "personal" });
  expect((await teams.send(activity)).status).toBe(200);
  const answer = await vi.waitFor(
    () => {
      const reply = d().teams.activities.find(
        (a) => a.appId === teams.appId && a.conversationId === activity.conversation.id,
      );
      expect(reply).toBeDefined();
      return reply as RecordedActivity;
    },
    { timeout: 30_000, interval: 50 },
  );
  expect(answer.activity.channelData).toMatchObject({ feedbackLoopEnabled: true });

  const invoke = feedbackInvoke({
    appId: teams.appId,
    serviceUrl: d().teams.serviceUrl,
    answer: { conversationId: answer.conversationId, id: answer.id },
    reaction: "like",
  });
  const signed = await teams.request(invoke);
  const acks = [await teams.send(signed, d().instances[0]?.url), await teams.send(signed, d().instances[1]?.url)];
  // A forged invoke (its token signed by a key the channel never published) is refused and counts nothing.
  const forger = await generateSigningKey("fake-bot-framework", ["msteams"]);
  const dislike = {
    ...invoke,
    id: "f:forged",
    value: { actionName: "feedback", actionValue: { reaction: "dislike" } },
  };
  const forged = await teams.send(await teams.request(dislike, { key: forger.privateKey }));
  const today = await todayOf(teams.tenantId, teams.workspaceId);
  report("feedback teams", { statuses: acks.map((a) => a.status), forged: forged.status, today });
  expect(acks.map((a) => a.status)).toEqual([200, 200]);
  expect(acks.filter((ack) => ack.body.includes("duplicate"))).toHaveLength(1);
  expect(forged.status).toBe(401);
  expect(today).toMatchObject({ positive: 1, negative: 0 });
});
