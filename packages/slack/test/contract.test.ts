import type { InboundRequest } from "@resident/core";
import { adapterContract } from "@resident/testkit";
import {
  appMention,
  FakeSlack,
  ownMessage,
  type SlackEventEnvelope,
  signSlackRequest,
  twinOf,
} from "@resident/testkit/slack";
import { SlackAdapter, slackPlatform } from "../src/index.ts";
import { signingSecret, slackWorkspace } from "./harness.ts";

adapterContract("slack", async () => {
  const slack = await new FakeSlack().start();
  const bot = slack.addBot();
  const adapter = new SlackAdapter({ apiUrl: slack.apiUrl });
  const credentials = { signingSecret, botToken: bot.token };
  const workspace = slackWorkspace(await adapter.connect(credentials), credentials);
  const sign = (body: unknown) => signSlackRequest({ signingSecret, body });
  const envelopeOf = (request: InboundRequest) => JSON.parse(request.rawBody.toString("utf8")) as SlackEventEnvelope;

  return {
    platform: slackPlatform,
    adapter,
    workspace,
    userMessage: (text) => sign(appMention(bot, text)),
    redelivery: (of) => signSlackRequest({ signingSecret, body: of.rawBody, retryNum: 1, retryReason: "http_timeout" }),
    twin: (of) => sign(twinOf(envelopeOf(of))),
    ownMessage: () => sign(ownMessage(bot)),
    tampered: (of) => ({ ...of, rawBody: Buffer.from(of.rawBody.toString("utf8").replace("<@", "<@!")) }),
    unsigned: (of) => {
      const {
        "x-slack-signature": _signature,
        "x-slack-request-timestamp": _timestamp,
        ...headers
      } = of.headers as Record<string, string>;
      return { ...of, headers };
    },
    replies: async () => slack.posts().map((post) => ({ conversationId: post.channel, text: post.text })),
    close: () => slack.close(),
  };
});
