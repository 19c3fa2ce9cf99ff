import { utcDay } from "@resident/core";
import { settle } from "@resident/testkit";
import { appMention, appUninstalled, feedbackClickPayload, slackId, twinOf } from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { InProcessService } from "./support/in-process-service.ts";
import { installThroughOAuth, startDistributedAppService } from "./support/slack-install.ts";

/*
 * The distributed app taking its events over Socket Mode (SLACK_APP_TOKEN): one set of connections for the app,
 * whatever the number of installations, each envelope routed to its installation's workspace.
 */

let s: InProcessService;
let appId: string;
beforeAll(async () => {
  ({ s } = await startDistributedAppService({ socketMode: true, env: { RECEIVER_LEASE_SECONDS: "2" } }));
  appId = s.slack.oauth.appId as string;
});
afterAll(() => s?.close());

const openConnections = () => s.slack.socketMode.open(appId);

describe("the distributed app over Socket Mode", () => {
  it("keeps connections for the app, not per installation, and answers each installation in its own workspace", async () => {
    const [a, b, c] = [await installThroughOAuth(s), await installThroughOAuth(s), await installThroughOAuth(s)];
    await vi.waitFor(() => expect(openConnections()).toHaveLength(2), { timeout: 10_000 });
    // Three installations, still the app's two connections (one instance: at least two, Slack's limit ten per app).
    await settle(2_500);
    expect(openConnections()).toHaveLength(2);
    const held = await s.service.runtime.receiverSlots.held("app_slack");
    expect(held.map((slot) => slot.slot)).toEqual([0, 1]);
    for (const installation of [a, b, c]) {
      expect(await s.service.runtime.receiverSlots.held(installation.workspaceId)).toEqual([]);
    }

    const mentions = [a, b, c].map(({ bot }) => ({
      bot,
      mention: appMention(bot, `over the socket, ${bot.teamName}`),
    }));
    const envelopes = mentions.flatMap(({ mention }) =>
      [mention, twinOf(mention), mention].map((payload) => s.slack.socketMode.deliver(appId, payload)),
    );
    await vi.waitFor(() => expect(s.slack.posts()).toHaveLength(3), { timeout: 15_000, interval: 100 });
    await vi.waitFor(() => expect(envelopes.every((envelope) => envelope.acks.length === 1)).toBe(true));
    await settle(1_500);
    for (const { bot, mention } of mentions) {
      const replies = s.slack.postsInThread(mention.event.channel, mention.event.ts);
      expect(replies.map((reply) => [reply.bot_id, reply.team])).toEqual([[bot.botId, bot.teamId]]);
    }
    expect(s.slack.posts()).toHaveLength(3);
  });

  it("shows each installation, in the admin API, the app's connections and the instances holding them", async () => {
    const [a, b] = [await installThroughOAuth(s), await installThroughOAuth(s)];
    const shownTo = (installation: typeof a) =>
      installation.admin.connections(installation.tenantId, installation.workspaceId);
    await vi.waitFor(async () => expect((await shownTo(a)).connections.map((c) => c.state)).toEqual(["open", "open"]), {
      timeout: 10_000,
    });
    // Another instance's lease on one more of the app's slots, written as that instance's pool would write it.
    const slots = s.service.runtime.receiverSlots;
    const token = (await slots.take("app_slack", 5, "other-instance", 60_000)) as string;
    expect(await slots.renew("app_slack", 5, token, "open", 60_000)).toBe(true);
    try {
      for (const installation of [a, b]) {
        const shown = await shownTo(installation);
        expect(shown).toMatchObject({ receiving: true, heldFor: "app" });
        expect(shown.connections.map((c) => [c.slot, c.instanceId, c.state])).toEqual([
          [0, "test-instance", "open"],
          [1, "test-instance", "open"],
          [5, "other-instance", "open"],
        ]);
      }
      // A tenant sees only its own workspaces, installations of the same app included.
      await expect(a.admin.connections(a.tenantId, b.workspaceId)).rejects.toMatchObject({ status: 404 });

      // Uninstalled: the workspace takes nothing over the app's connections, and none is shown for it.
      s.slack.socketMode.deliver(appId, appUninstalled(a.bot));
      await vi.waitFor(async () => expect((await shownTo(a)).receiving).toBe(false), { timeout: 10_000 });
      expect(await shownTo(a)).toEqual({ receiving: false, heldFor: "workspace", connections: [] });
      expect((await shownTo(b)).connections).toHaveLength(3);
    } finally {
      await slots.release("app_slack", 5, token);
    }
  });

  it("counts a click on an installation's answer, sent three times (redelivered), once, in that workspace", async () => {
    const installed = await installThroughOAuth(s);
    await vi.waitFor(() => expect(openConnections()).toHaveLength(2), { timeout: 10_000 });
    const mention = appMention(installed.bot, "was this useful?");
    s.slack.socketMode.deliver(appId, mention);
    const post = await vi.waitFor(
      () => {
        const [answer] = s.slack.postsInThread(mention.event.channel, mention.event.ts);
        expect(answer?.streaming ?? false).toBe(false);
        expect(answer?.metadata).toBeDefined();
        return answer as NonNullable<typeof answer>;
      },
      { timeout: 15_000 },
    );
    const click = s.slack.socketMode.deliver(appId, feedbackClickPayload(post, { vote: "negative" }), "interactive");
    for (const acks of [1, 2]) {
      await vi.waitFor(() => expect(click.acks).toHaveLength(acks));
      s.slack.socketMode.redeliver(click);
    }
    await vi.waitFor(() => expect(click.acks).toHaveLength(3));
    await settle(500);
    const { days } = await installed.admin.feedback(installed.tenantId, installed.workspaceId);
    const today = days.find((d) => d.day === utcDay(Date.now()));
    console.log(`[app socket feedback 3x] attempts=${click.attempts.length} today=${JSON.stringify(today)}`);
    expect(today).toMatchObject({ positive: 0, negative: 1 });
  });

  it("acknowledges an envelope of no installation and answers nothing", async () => {
    await vi.waitFor(() => expect(openConnections()).toHaveLength(2), { timeout: 10_000 });
    const before = s.slack.posts().length;
    const stranger = { teamId: slackId("T"), appId, userId: slackId("U"), botId: slackId("B") };
    const envelope = s.slack.socketMode.deliver(appId, appMention(stranger, "nobody installed me"));
    await vi.waitFor(() => expect(envelope.acks).toHaveLength(1));
    await settle(1_000);
    expect(envelope.attempts).toHaveLength(1);
    expect(s.slack.posts()).toHaveLength(before);
  });
});
