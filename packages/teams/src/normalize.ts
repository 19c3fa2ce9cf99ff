import { type Author, type Inbound, MalformedPayloadError, type Workspace } from "@resident/core";
import { conversationParts } from "./conversation-id.ts";
import type { TeamsCredentials } from "./credentials.ts";
import { normalizeInvoke } from "./feedback.ts";
import { botMentions, withoutMentions } from "./mentions.ts";
import { fingerprintWindowMs, teamsEventId, teamsMessageKey } from "./message-key.ts";
import type { InboundActivity } from "./payload.ts";
import { quotedMessages } from "./thread.ts";

const ignore = (reason: string): Inbound => ({ kind: "ignore", reason });

/** The activity-type policy (README, "What gets answered"). */
export function normalizeDelivery(
  activity: InboundActivity,
  workspace: Workspace<TeamsCredentials>,
  receivedAt: number,
): Inbound {
  if (activity.channelId !== "msteams") return ignore(`not a Teams activity (${activity.channelId})`);
  switch (activity.type) {
    case "message":
      return normalizeMessage(activity, workspace, receivedAt);
    case "messageUpdate":
    case "messageDelete":
      return ignore(`${activity.type}: an edit or deletion is not a new question`);
    case "conversationUpdate":
    case "installationUpdate":
      return ignore(`${activity.type}: membership and installs get no greeting`);
    case "invoke":
      return normalizeInvoke(activity, workspace, receivedAt);
    default:
      return ignore(`activity type ${activity.type}`);
  }
}

function normalizeMessage(
  activity: InboundActivity,
  workspace: Workspace<TeamsCredentials>,
  receivedAt: number,
): Inbound {
  const botIds = new Set([activity.recipient.id, `28:${workspace.credentials.appId}`]);
  const author: Author = {
    id: activity.from.id,
    name: activity.from.name,
    isBot: activity.from.id.startsWith("28:") || activity.from.role === "bot",
    isSelf: botIds.has(activity.from.id),
  };
  if (author.isSelf) return ignore("our own message");
  if (author.isBot) return ignore("another bot's message");

  const { conversation } = activity;
  const { base, threadRootId } = conversationParts(conversation.id);
  const conversationType =
    conversation.conversationType ?? (threadRootId ? "channel" : conversation.isGroup ? "groupChat" : "personal");
  const mentions = botMentions(activity, botIds);
  // Only in a 1:1 chat is every message for the bot; elsewhere (and with RSC, which delivers every message) it is
  // asked by @mention.
  if (conversationType !== "personal" && mentions.length === 0) return ignore("not addressed to the bot");
  const text = withoutMentions(activity.text ?? "", mentions);
  if (text === "") return ignore("no text");
  if (!activity.id) throw new MalformedPayloadError("a message activity without an id");

  const aadTenantId = conversation.tenantId ?? activity.channelData?.tenant?.id ?? "";
  const address: Record<string, string> = {
    serviceUrl: activity.serviceUrl,
    conversationType,
    botId: activity.recipient.id,
  };
  if (aadTenantId) address.tenantId = aadTenantId;
  if (activity.recipient.name) address.botName = activity.recipient.name;
  const context = quotedMessages(activity);

  return {
    kind: "message",
    event: {
      platform: "teams",
      tenantId: workspace.tenantId,
      workspaceId: workspace.id,
      eventId: teamsEventId(aadTenantId, conversation.id, activity.id),
      messageKey: teamsMessageKey({ aadTenantId, conversation: base, senderId: author.id, text }),
      messageKeyWindowMs: fingerprintWindowMs,
      conversation: { id: conversation.id, threadId: threadRootId, replyToId: activity.id, address },
      author,
      text,
      ...(context.length > 0 ? { context } : {}),
      receivedAt,
    },
  };
}
