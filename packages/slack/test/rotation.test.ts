import {
  MemoryCredentialStore,
  type OutboundReply,
  PermanentSendError,
  replyKey,
  type Workspace,
} from "@resident/core";
import { appMention, FakeSlack, type FakeSlackBot, type FakeTokenSet } from "@resident/testkit/slack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SlackAdapter, type SlackCredentials } from "../src/index.ts";
import { delivery, signingSecret, slackWorkspace } from "./harness.ts";

const slack = new FakeSlack();
beforeAll(() => slack.start());
afterAll(() => slack.close());

/** Three instances' adapters over one credential store, as the cluster shares one database. */
function cluster(bot: FakeSlackBot & FakeTokenSet, app = slack.rotation.app) {
  const { botToken, botRefreshToken, botTokenExpiresAt } = bot;
  const credentials: SlackCredentials = { signingSecret, botToken, botRefreshToken, botTokenExpiresAt };
  const workspace = slackWorkspace({ botUserId: bot.userId, botId: bot.botId, teamId: bot.teamId }, credentials);
  const store = new MemoryCredentialStore().set(workspace.id, credentials);
  const adapters = [0, 1, 2].map(() => new SlackAdapter({ apiUrl: slack.apiUrl, credentials: store, app }));
  return { workspace, store, adapters };
}

function replyTo(adapter: SlackAdapter, bot: FakeSlackBot, workspace: Workspace<SlackCredentials>, text: string) {
  const inbound = adapter.normalize(delivery(appMention(bot, text)), workspace, Date.now());
  if (inbound.kind !== "message") throw new Error(`expected a message, got ${inbound.kind}`);
  return {
    event: inbound.event,
    text: `answer to: ${text}`,
    replyKey: replyKey(inbound.event),
  } as OutboundReply;
}

const postsWith = (token: string) =>
  slack.callsTo("chat.postMessage").filter((call) => call.headers.authorization === `Bearer ${token}`);

describe("rotating bot tokens", () => {
  it("20 concurrent sends from 3 instances as the token nears expiry: one refresh, every post with the new token", async () => {
    const bot = slack.addRotatingBot(60_000);
    const { workspace, store, adapters } = cluster(bot);
    const refreshesBefore = slack.rotation.refreshes.length;
    const sent = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const adapter = adapters[i % 3] as SlackAdapter;
        return adapter.send(replyTo(adapter, bot, workspace, `question ${i}`), workspace);
      }),
    );
    const refreshes = slack.rotation.refreshes.slice(refreshesBefore);
    const fresh = store.get<SlackCredentials>(workspace.id);
    console.log(
      `[slack rotation, 20 sends, 3 instances] refreshes=${refreshes.length} posts=${sent.length} ` +
        `withNewToken=${postsWith(fresh?.botToken ?? "").length}`,
    );
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]).toMatchObject({ refreshToken: bot.botRefreshToken, issued: fresh?.botToken });
    expect(fresh?.botTokenExpiresAt).toBeGreaterThan(Date.now() + 11 * 3_600_000);
    expect(new Set(sent.map((s) => s.messageId)).size).toBe(20);
    expect(postsWith(fresh?.botToken ?? "")).toHaveLength(20);
    expect(postsWith(bot.botToken)).toHaveLength(0);
  });

  it("without a lock shared by the instances the count sees it: several refreshes, and some instances left refused", async () => {
    const bot = slack.addRotatingBot(60_000);
    const { workspace } = cluster(bot);
    // Each instance with a store of its own: what node-slack-sdk#2504 describes.
    const apart = [0, 1, 2].map(
      () =>
        new SlackAdapter({
          apiUrl: slack.apiUrl,
          credentials: new MemoryCredentialStore().set(workspace.id, workspace.credentials),
          app: slack.rotation.app,
        }),
    );
    const refreshesBefore = slack.rotation.refreshes.length;
    const outcomes = await Promise.allSettled(
      apart.map((adapter, i) => adapter.send(replyTo(adapter, bot, workspace, `apart ${i}`), workspace)),
    );
    const refreshes = slack.rotation.refreshes.slice(refreshesBefore);
    expect(refreshes).toHaveLength(3);
    expect(refreshes.filter((refresh) => refresh.error === "invalid_refresh_token")).toHaveLength(2);
    expect(outcomes.filter((outcome) => outcome.status === "rejected")).toHaveLength(2);
  });

  it("a token Slack calls expired before its time: one refresh, and the post made once more with the new token", async () => {
    const bot = slack.addRotatingBot();
    const { workspace, store, adapters } = cluster(bot);
    slack.rotation.expire(bot.botToken);
    const refreshesBefore = slack.rotation.refreshes.length;
    const sent = await Promise.all(
      adapters.map((adapter, i) => adapter.send(replyTo(adapter, bot, workspace, `late ${i}`), workspace)),
    );
    const fresh = store.get<SlackCredentials>(workspace.id)?.botToken ?? "";
    expect(slack.rotation.refreshes.length - refreshesBefore).toBe(1);
    expect(sent).toHaveLength(3);
    expect(postsWith(fresh)).toHaveLength(3);
    // Each instance was refused once with the old token, and posted once with the new.
    expect(postsWith(bot.botToken).map((call) => call.status)).toEqual([200, 200, 200]);
    expect(slack.posts().filter((post) => post.text.startsWith("answer to: late"))).toHaveLength(3);
  });

  it("a refresh Slack refuses (invalid_refresh_token) fails the send for good and names the reason", async () => {
    const bot = slack.addRotatingBot(60_000);
    const { workspace, adapters } = cluster(bot);
    // Spent elsewhere: the refresh token is honoured once.
    const other = cluster(bot);
    await other.adapters[0]?.send(replyTo(other.adapters[0], bot, other.workspace, "spends it"), other.workspace);
    const adapter = adapters[0] as SlackAdapter;
    const attempt = adapter.send(replyTo(adapter, bot, workspace, "after"), workspace);
    await expect(attempt).rejects.toBeInstanceOf(PermanentSendError);
    await expect(attempt).rejects.toThrow(/invalid_refresh_token/);
    expect(slack.rotation.refreshes.at(-1)).toMatchObject({ error: "invalid_refresh_token" });
  });

  it("a rotating token without the app's client id and secret is not refreshed, and says what is missing", async () => {
    const bot = slack.addRotatingBot(60_000);
    const { workspace, adapters } = cluster(bot, undefined as never);
    const unconfigured = new SlackAdapter({
      apiUrl: slack.apiUrl,
      credentials: new MemoryCredentialStore().set(workspace.id, workspace.credentials),
    });
    const refreshesBefore = slack.rotation.refreshes.length;
    await expect(
      unconfigured.send(replyTo(adapters[0] as SlackAdapter, bot, workspace, "no app"), workspace),
    ).rejects.toThrow(/SLACK_CLIENT_ID and SLACK_CLIENT_SECRET/);
    expect(slack.rotation.refreshes.length).toBe(refreshesBefore);
  });

  it("a token that does not rotate is used as it is", async () => {
    const bot = slack.addBot();
    const workspace = slackWorkspace(
      { botUserId: bot.userId, botId: bot.botId, teamId: bot.teamId },
      { signingSecret, botToken: bot.token },
    );
    const adapter = new SlackAdapter({ apiUrl: slack.apiUrl });
    const refreshesBefore = slack.rotation.refreshes.length;
    await adapter.send(replyTo(adapter, bot, workspace, "plain"), workspace);
    expect(postsWith(bot.token)).toHaveLength(1);
    expect(slack.rotation.refreshes.length).toBe(refreshesBefore);
  });
});
