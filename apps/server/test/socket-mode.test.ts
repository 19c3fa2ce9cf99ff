import { utcDay } from "@resident/core";
import {
  appMention,
  type FakeSlackBot,
  type FakeSlackPost,
  feedbackClickPayload,
  twinOf,
} from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";

/*
 * One instance taking a Slack workspace's events over Socket Mode from the fake Slack: the connections it keeps open,
 * the envelopes it acknowledges only once they are queued, Slack's disconnect, and what the admin API shows.
 */

let s: InProcessService;
beforeAll(async () => {
  s = await startInProcessService({ RECEIVER_LEASE_SECONDS: "2" });
});
afterAll(() => s?.close());

async function socketWorkspace() {
  const tenant = await s.operator.tenantWithAdmin("Socket Mode tenant");
  const bot = s.slack.addBot();
  const appToken = s.slack.socketMode.addApp(bot.appId);
  const workspace = await tenant.admin.createWorkspace(tenant.tenantId, {
    platform: "slack",
    name: "Socket Mode",
    credentials: { botToken: bot.token, appToken },
  });
  return { tenant, bot, appToken, workspaceId: workspace.id as string };
}

const repliesTo = (mention: ReturnType<typeof appMention>) =>
  s.slack.postsInThread(mention.event.channel, mention.event.ts);
const openConnections = (bot: FakeSlackBot) => s.slack.socketMode.open(bot.appId);

describe("a Socket Mode workspace on one instance", () => {
  it("keeps two connections open, and the admin API says where", async () => {
    const { tenant, bot, workspaceId } = await socketWorkspace();
    await vi.waitFor(() => expect(openConnections(bot)).toHaveLength(2), { timeout: 10_000 });
    const shown = await vi.waitFor(
      async () => {
        const body = await tenant.admin.connections(tenant.tenantId, workspaceId);
        expect(body.connections.map((c) => c.state)).toEqual(["open", "open"]);
        return body;
      },
      { timeout: 10_000 },
    );
    expect(shown).toMatchObject({ receiving: true, heldFor: "workspace" });
    expect(shown.connections).toMatchObject([
      { slot: 0, instanceId: "test-instance" },
      { slot: 1, instanceId: "test-instance" },
    ]);
    expect(JSON.stringify(await tenant.admin.workspace(tenant.tenantId, workspaceId))).not.toContain("xapp-");
  });

  it("answers a message delivered as twins and a duplicate once, acknowledging every envelope", async () => {
    const { bot } = await socketWorkspace();
    await vi.waitFor(() => expect(openConnections(bot)).toHaveLength(2), { timeout: 10_000 });
    const mention = appMention(bot, "where is my parcel?");
    const envelopes = [mention, twinOf(mention), mention].map((payload) =>
      s.slack.socketMode.deliver(bot.appId, payload),
    );
    await vi.waitFor(() => expect(repliesTo(mention)).toHaveLength(1), { timeout: 10_000 });
    await vi.waitFor(() => expect(envelopes.every((e) => e.acks.length === 1)).toBe(true));
    expect(envelopes.flatMap((e) => e.attempts)).toHaveLength(3);
    expect(Math.max(...envelopes.flatMap((e) => e.acks.map((a) => a.afterMs)))).toBeLessThan(3_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(repliesTo(mention)).toHaveLength(1);
    expect(repliesTo(mention)[0]?.text).toBe("answer to: where is my parcel?");
  });

  it("counts a feedback click sent as an interactive envelope three times (redelivered), once", async () => {
    const { tenant, bot, workspaceId } = await socketWorkspace();
    await vi.waitFor(() => expect(openConnections(bot)).toHaveLength(2), { timeout: 10_000 });
    const mention = appMention(bot, "did this help?");
    s.slack.socketMode.deliver(bot.appId, mention);
    const post = await vi.waitFor(
      () => {
        const [answer] = repliesTo(mention);
        expect(answer?.streaming ?? false).toBe(false);
        expect(answer?.metadata).toBeDefined();
        return answer as FakeSlackPost;
      },
      { timeout: 10_000 },
    );
    const click = s.slack.socketMode.deliver(
      bot.appId,
      feedbackClickPayload(post, { vote: "positive", user: "U0SOCKETVOTER" }),
      "interactive",
    );
    for (const acks of [1, 2]) {
      await vi.waitFor(() => expect(click.acks).toHaveLength(acks));
      s.slack.socketMode.redeliver(click);
    }
    await vi.waitFor(() => expect(click.acks).toHaveLength(3));
    expect(click.attempts.map((a) => [a.retryAttempt, a.retryReason])).toEqual([
      [0, ""],
      [1, "timeout"],
      [2, "timeout"],
    ]);
    expect(Math.max(...click.acks.map((a) => a.afterMs))).toBeLessThan(3_000);
    // Some time for a wrongly counted redelivery to land before the count is read.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { days } = await tenant.admin.feedback(tenant.tenantId, workspaceId);
    const today = days.find((d) => d.day === utcDay(Date.now()));
    console.log(
      `[socket feedback 3x] attempts=${click.attempts.length} acks=${click.acks.length} today=${JSON.stringify(today)}`,
    );
    expect(today).toMatchObject({ positive: 1, negative: 0 });
  });

  it("re-opens its connections after Slack's refresh_requested, and loses nothing sent meanwhile", async () => {
    const { bot } = await socketWorkspace();
    await vi.waitFor(() => expect(openConnections(bot)).toHaveLength(2), { timeout: 10_000 });
    const before = new Set(openConnections(bot).map((c) => c.id));
    expect(s.slack.socketMode.disconnect(bot.appId, "refresh_requested")).toBe(2);
    const mention = appMention(bot, "are you still there?");
    const envelope = s.slack.socketMode.deliver(bot.appId, mention);
    await vi.waitFor(
      () => {
        const now = openConnections(bot);
        expect(now).toHaveLength(2);
        expect(now.filter((c) => before.has(c.id))).toEqual([]);
      },
      { timeout: 15_000 },
    );
    await vi.waitFor(() => expect(repliesTo(mention)).toHaveLength(1), { timeout: 15_000 });
    expect(envelope.acks).toHaveLength(1);
  });

  it("refuses a webhook for a workspace that has no signing secret", async () => {
    const { workspaceId } = await socketWorkspace();
    const response = await fetch(`${s.url}/slack/events/${workspaceId}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-slack-request-timestamp": "1", "x-slack-signature": "v0=0" },
      body: "{}",
    });
    expect(response.status).toBe(401);
  });

  it("refuses an app-level token Slack does not know, naming the field only", async () => {
    const tenant = await s.operator.tenantWithAdmin("Bad token tenant");
    const bot = s.slack.addBot();
    const { status, body } = await tenant.admin.request("POST", `/tenants/${tenant.tenantId}/workspaces`, {
      platform: "slack",
      name: "Socket Mode",
      credentials: { botToken: bot.token, appToken: "xapp-1-unknown-0123456789" },
    });
    expect(status).toBe(422);
    expect(JSON.stringify(body)).toContain("app-level token");
    expect(JSON.stringify(body)).not.toContain("xapp-1-unknown");
  });
});
