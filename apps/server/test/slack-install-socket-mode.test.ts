import { settle } from "@resident/testkit";
import { appMention, slackId, twinOf } from "@resident/testkit/slack";
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
