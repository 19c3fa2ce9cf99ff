import type { ChatEvent, Inbound, Workspace } from "@resident/core";
import { type ChatworkBot, fromIdentity } from "./identity.ts";
import { addressesAccount, withoutMention } from "./notation.ts";
import type { ChatworkDelivery, ChatworkMessage } from "./payload.ts";

const ignore = (reason: string): Inbound => ({ kind: "ignore", reason });

/**
 * Which deliveries are answered (README, "Which messages are answered"): every mention_to_me of the bot; a
 * message_created in the bot's direct chats, and in group rooms only when it addresses the bot; never the bot's own
 * messages, never an edit.
 */
export function normalizeDelivery(delivery: ChatworkDelivery, workspace: Workspace, receivedAt: number): Inbound {
  const { message, eventType } = delivery;
  if (!message) return ignore(`unhandled Chatwork event ${eventType}`);
  const bot = fromIdentity(workspace.identity);
  if (message.authorId === bot.accountId) return ignore("own message");
  switch (eventType) {
    case "mention_to_me":
      if (message.mentionedId !== bot.accountId) return ignore("mention of another account");
      break;
    case "message_created":
      if (!bot.directRoomIds.includes(message.roomId) && !addressesAccount(message.body, bot.accountId)) {
        return ignore("group room message not addressed to the bot");
      }
      break;
    default:
      return ignore(`edit (${eventType}): a message is answered once, as first sent`);
  }
  return { kind: "message", event: chatEvent(delivery, message, workspace, bot, receivedAt) };
}

function chatEvent(
  delivery: ChatworkDelivery,
  message: ChatworkMessage,
  workspace: Workspace,
  bot: ChatworkBot,
  receivedAt: number,
): ChatEvent {
  return {
    platform: "chatwork",
    tenantId: workspace.tenantId,
    workspaceId: workspace.id,
    // One id per webhook: the twin from the other webhook has its own setting id and event type.
    eventId: `${delivery.settingId}:${delivery.eventType}:${message.messageId}`,
    // Both webhooks name the same room and message: the twin is answered once.
    messageKey: `${message.roomId}:${message.messageId}`,
    conversation: { id: message.roomId, replyToId: message.messageId },
    author: { id: message.authorId, isBot: false, isSelf: false },
    text: withoutMention(message.body, bot.accountId, bot.name),
    receivedAt,
  };
}
