import { readFileSync } from "node:fs";
import {
  type BotIdentity,
  type InboundRequest,
  type OutboundReply,
  replyKey,
  resolveSettings,
  type Workspace,
} from "@resident/core";
import { appMention, FakeSlack, type FakeSlackBot, type MessageOptions } from "@resident/testkit/slack";
import { afterAll, afterEach, beforeAll } from "vitest";
import { SlackAdapter, type SlackCredentials } from "../src/index.ts";

export const signingSecret = "8f742231b10e8888abcd99yyyzzz85a5";

export function slackWorkspace(
  identity: BotIdentity,
  credentials: SlackCredentials = { signingSecret, botToken: "xoxb-0-not-a-real-token" },
): Workspace<SlackCredentials> {
  return {
    id: "ws_slack",
    tenantId: "tenant_1",
    platform: "slack",
    name: "Slack test workspace",
    credentials,
    settings: resolveSettings({}, "closed"),
    identity,
  };
}

export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8"));
}

export function fixtureBytes(name: string): Buffer {
  return readFileSync(new URL(`fixtures/${name}`, import.meta.url));
}

/** A delivery as the receiver hands it over; normalize runs after verify, so no signature is needed here. */
export function delivery(body: unknown, headers: Record<string, string> = {}): InboundRequest {
  return {
    rawBody: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
    headers: { "content-type": "application/json", ...headers },
    query: {},
  };
}

export interface SlackHarness {
  slack: FakeSlack;
  bot: FakeSlackBot;
  adapter: SlackAdapter;
  workspace: Workspace<SlackCredentials>;
  /** A reply to a fresh user message mentioning the bot, as the reply worker builds it. */
  replyTo(text?: string, options?: MessageOptions, answer?: string): OutboundReply;
}

/**
 * A fake Slack with one bot, and an adapter connected to it through that bot's token, for one file's tests: started
 * before them, its faults cleared after each, closed after all. Read its fields inside tests, not at module level.
 */
export function slackForTests(adapterOptions: { timeoutMs: number }): SlackHarness {
  const slack = new FakeSlack();
  const harness = { slack } as SlackHarness;
  beforeAll(async () => {
    await slack.start();
    const bot = slack.addBot();
    const adapter = new SlackAdapter({ apiUrl: slack.apiUrl, ...adapterOptions });
    const credentials = { signingSecret, botToken: bot.token };
    Object.assign(harness, {
      bot,
      adapter,
      workspace: slackWorkspace(await adapter.connect(credentials), credentials),
    });
  });
  afterAll(() => slack.close());
  afterEach(() => slack.clearFaults());
  harness.replyTo = (text = "what is our refund policy?", options = {}, answer = `answer to: ${text}`) => {
    const inbound = harness.adapter.normalize(
      delivery(appMention(harness.bot, text, options)),
      harness.workspace,
      Date.now(),
    );
    if (inbound.kind !== "message") throw new Error(`expected a message, got ${inbound.kind}`);
    return { event: inbound.event, text: answer, replyKey: replyKey(inbound.event) };
  };
  return harness;
}
