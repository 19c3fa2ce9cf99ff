import { readFileSync } from "node:fs";
import type { ChatEvent, InboundRequest } from "@resident/core";
import { mentionToMe, messageUpdated, nextChatworkMessageId, signChatworkWebhook } from "@resident/testkit/chatwork";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accountWebhookToken,
  bot,
  chatworkWorld,
  createdDelivery,
  directRoom,
  groupRoom,
  mentionDelivery,
  roomWebhookToken,
  user,
} from "./harness.ts";

describe("ChatworkAdapter.normalize", () => {
  let world: Awaited<ReturnType<typeof chatworkWorld>>;
  beforeAll(async () => {
    world = await chatworkWorld();
  });
  afterAll(() => world.close());

  const normalize = (request: InboundRequest) => world.adapter.normalize(request, world.workspace, 1_700_000_000_000);
  const message = (request: InboundRequest): ChatEvent => {
    const inbound = normalize(request);
    if (inbound.kind !== "message")
      throw new Error(`expected a message, got ${inbound.kind}: ${JSON.stringify(inbound)}`);
    return inbound.event;
  };
  const ignored = (request: InboundRequest) => {
    const inbound = normalize(request);
    return inbound.kind === "ignore" ? inbound.reason : undefined;
  };

  it("gives the mention_to_me / message_created twin one message key under two event ids", () => {
    const messageId = nextChatworkMessageId();
    const body = `[To:${bot.accountId}]${bot.name}さん\nwhen is the office open?`;
    const mention = message(mentionDelivery("when is the office open?", { messageId }));
    const created = message(createdDelivery({ messageId, body }));
    expect(created.messageKey).toBe(mention.messageKey);
    expect(created.eventId).not.toBe(mention.eventId);
    expect(mention).toMatchObject({
      platform: "chatwork",
      messageKey: `${groupRoom}:${messageId}`,
      conversation: { id: String(groupRoom), replyToId: messageId },
      author: { id: String(user.accountId), isBot: false, isSelf: false },
      text: "when is the office open?",
    });
    expect(created.text).toBe(mention.text);
  });

  it("keeps a 19-digit message id exactly as Chatwork sent it", () => {
    const messageId = "1106581974606151689";
    expect(Number(messageId).toString()).not.toBe(messageId);
    expect(message(mentionDelivery("precise", { messageId })).conversation.replyToId).toBe(messageId);
  });

  it("strips the mention the way Chatwork's client writes it (a real capture)", () => {
    const raw = readFileSync(new URL("./fixtures/chatwork-mention_to_me.real-capture.json", import.meta.url), "utf8");
    const signed = signChatworkWebhook({ webhookToken: accountWebhookToken, body: raw });
    expect(world.workspace.identity.accountId).toBe("3430971");
    expect(message(signed)).toMatchObject({ text: "adsfadf", conversation: { id: "125733107" } });
  });

  it("ignores the bot's own messages from either webhook", () => {
    expect(ignored(createdDelivery({ accountId: bot.accountId, body: "[rp aid=624077 to=1-2]\nan answer" }))).toBe(
      "own message",
    );
    const selfMention = mentionToMe({ fromAccountId: bot.accountId, toAccountId: bot.accountId, roomId: 1, body: "x" });
    expect(ignored(signChatworkWebhook({ webhookToken: accountWebhookToken, body: selfMention }))).toBe("own message");
  });

  it("ignores a mention_to_me addressed to another account", () => {
    const other = mentionToMe({
      fromAccountId: user.accountId,
      toAccountId: 42,
      roomId: groupRoom,
      body: "[To:42] hi",
    });
    expect(ignored(signChatworkWebhook({ webhookToken: accountWebhookToken, body: other }))).toBe(
      "mention of another account",
    );
  });

  it("answers group room messages only when they address the bot with [To:] or a reply, in either spelling", () => {
    expect(ignored(createdDelivery({ body: "lunch anyone?" }))).toBe("group room message not addressed to the bot");
    expect(ignored(createdDelivery({ body: "[toall]\nfire drill at 3" }))).toBe(
      "group room message not addressed to the bot",
    );
    expect(message(createdDelivery({ body: `[To:${bot.accountId}] and you?` })).text).toBe("and you?");
    expect(
      message(createdDelivery({ body: `[rp aid=${bot.accountId} to=${groupRoom}-1]${bot.name}さん\nthanks, and?` }))
        .text,
    ).toBe("thanks, and?");
    expect(
      message(createdDelivery({ body: `[返信 aid=${bot.accountId} to=${groupRoom}-1]${bot.name}さん\nもう一つ` })).text,
    ).toBe("もう一つ");
  });

  it("does not take a [To:] inside a quote as addressing the bot", () => {
    const body = `[qt][qtmeta aid=${user.accountId} time=1700000000][To:${bot.accountId}] earlier question[/qt]\nquoting this`;
    expect(ignored(createdDelivery({ body }))).toBe("group room message not addressed to the bot");
  });

  it("answers every message in the bot's direct chats", () => {
    expect(message(createdDelivery({ roomId: directRoom, body: "can you help?" })).text).toBe("can you help?");
  });

  it("ignores edits and unknown event types", () => {
    const edit = messageUpdated({ accountId: user.accountId, roomId: directRoom, body: "can you help? (edited)" });
    expect(ignored(signChatworkWebhook({ webhookToken: roomWebhookToken, body: edit }))).toMatch(/^edit/);
    const unknown = { ...edit, webhook_event_type: "room_member_added" };
    expect(ignored(signChatworkWebhook({ webhookToken: roomWebhookToken, body: unknown }))).toMatch(/unhandled/);
  });

  it("reads the docs' own mention_to_me sample", () => {
    const raw = readFileSync(new URL("./fixtures/chatwork-mention_to_me.docs-sample.json", import.meta.url), "utf8");
    const signed = signChatworkWebhook({ webhookToken: accountWebhookToken, body: raw });
    // The sample mentions account 1484814, not our bot: parsed, then ignored as another account's mention.
    expect(ignored(signed)).toBe("mention of another account");
  });
});
