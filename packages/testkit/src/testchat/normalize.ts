import type { Inbound, Workspace } from "@resident/core";
import type { TestchatDelivery } from "./payload.ts";

const ignore = (reason: string): Inbound => ({ kind: "ignore", reason });

/** Every message that mentions the bot (`@bot`), except the bot's own and other bots'. */
export function normalizeDelivery(delivery: TestchatDelivery, workspace: Workspace, receivedAt: number): Inbound {
  const { message } = delivery;
  const botId = workspace.identity.botId;
  if (message.author === botId) return ignore("our own message");
  if (message.bot) return ignore("another bot's message");
  const mention = `<@${botId}>`;
  if (!message.text.includes(mention)) return ignore("not addressed to the bot");
  return {
    kind: "message",
    event: {
      platform: "testchat",
      tenantId: workspace.tenantId,
      workspaceId: workspace.id,
      eventId: delivery.delivery_id,
      messageKey: `${message.room}:${message.id}`,
      conversation: { id: message.room, replyToId: message.id },
      author: { id: message.author, isBot: false, isSelf: false },
      text: message.text.replaceAll(mention, "").trim(),
      receivedAt,
    },
  };
}
