import type { InboundRequest } from "@resident/core";
import { adapterContract } from "@resident/testkit";
import { messageCreated, signChatworkWebhook } from "@resident/testkit/chatwork";
import { describe, expect, it } from "vitest";
import { chatworkFailModeConsequences, chatworkPlatform } from "../src/index.ts";
import { bot, chatworkWorld, createdDelivery, mentionDelivery, roomWebhookToken } from "./harness.ts";

adapterContract("chatwork", async () => {
  const world = await chatworkWorld();
  return {
    platform: chatworkPlatform,
    adapter: world.adapter,
    workspace: world.workspace,
    userMessage: (text) => mentionDelivery(text),
    // Chatwork never redelivers; the same delivery arriving twice is the same bytes.
    redelivery: (of) => ({ ...of, rawBody: Buffer.from(of.rawBody) }),
    twin: (of) => {
      const { webhook_event: event } = JSON.parse(of.rawBody.toString("utf8"));
      const created = messageCreated({
        accountId: event.from_account_id,
        roomId: event.room_id,
        messageId: event.message_id,
        body: event.body,
      });
      return signChatworkWebhook({ webhookToken: roomWebhookToken, body: created });
    },
    ownMessage: () => createdDelivery({ accountId: bot.accountId, body: "[rp aid=1 to=2-3]\nour own answer" }),
    tampered: (of) => ({ ...of, rawBody: Buffer.from(of.rawBody.toString("utf8").replace("}", ',"x":1}')) }),
    unsigned: (of): InboundRequest => ({ ...of, headers: { "content-type": "application/json" }, query: {} }),
    replies: async () => world.fake.replies(),
    close: world.close,
  };
});

describe("Chatwork fail mode", () => {
  it("fails open by default, because Chatwork never redelivers what a closed workspace refuses", () => {
    expect(chatworkPlatform.defaultFailMode).toBe("open");
    expect(chatworkFailModeConsequences.closed.en).toMatch(/lost/);
    expect(chatworkFailModeConsequences.closed.ja).toMatch(/失われ/);
    expect(chatworkFailModeConsequences.open.en).toMatch(/twice/);
    expect(chatworkFailModeConsequences.open.ja).toMatch(/二重/);
  });
});
