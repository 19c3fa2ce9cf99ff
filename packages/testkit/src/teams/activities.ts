export type TeamsConversationType = "personal" | "groupChat" | "channel";

export interface TeamsAccount {
  id: string;
  name?: string;
  aadObjectId?: string;
}

/** A Bot Framework activity as Teams posts it to a bot (the fields resident reads, and the usual others). */
export interface TeamsActivity {
  type: string;
  id: string;
  timestamp: string;
  localTimestamp?: string;
  serviceUrl: string;
  channelId: string;
  from: TeamsAccount;
  conversation: { id: string; conversationType: TeamsConversationType; tenantId: string; isGroup?: boolean };
  recipient: TeamsAccount;
  textFormat?: string;
  text?: string;
  entities?: Record<string, unknown>[];
  channelData?: Record<string, unknown>;
  locale?: string;
  [field: string]: unknown;
}

export interface TeamsMessageOptions {
  /** The bot's Microsoft app id; the recipient is `28:<appId>`. */
  appId: string;
  serviceUrl: string;
  /** What the user wrote after the bot's mention. */
  text: string;
  conversationType?: TeamsConversationType;
  /** The conversation without any `;messageid=` suffix. Defaults per type, stable for a given type. */
  conversationId?: string;
  /** Channels: the post this message replies to. Absent: the message is a new post (the thread's root). */
  threadRootId?: string;
  /** The activity (Teams message) id. Default: a new epoch-milliseconds id, as Teams' ids look. */
  id?: string;
  timestamp?: Date;
  from?: TeamsAccount;
  /** Mention the bot in front of the text (default: everywhere but personal chats, as users write). */
  mention?: boolean;
  botName?: string;
  tenantId?: string;
}

export const defaultTeamsTenantId = "tttttttt-0000-0000-0000-000000000001";
export const defaultTeamsUser: TeamsAccount = {
  id: "29:1abcUserId",
  name: "Alice",
  aadObjectId: "aaaaaaaa-0000-0000-0000-000000000001",
};

const defaultConversationIds: Record<TeamsConversationType, string> = {
  personal: "a:1personalChatWithAlice",
  groupChat: "19:groupchat0001@thread.v2",
  channel: "19:channel0001@thread.tacv2",
};

let lastId = 0;

/** A fresh Teams-style message id: epoch milliseconds, strictly increasing within this process. */
export function nextTeamsMessageId(): string {
  lastId = Math.max(lastId + 1, Date.now());
  return String(lastId);
}

/**
 * A user's message activity shaped like the fixtures (a personal message, a channel @mention with
 * `19:…@thread.tacv2;messageid=…`, `conversation.tenantId`, a `28:<appId>` recipient and a mention entity).
 */
export function teamsMessage(options: TeamsMessageOptions): TeamsActivity {
  const type = options.conversationType ?? "channel";
  const id = options.id ?? nextTeamsMessageId();
  const tenantId = options.tenantId ?? defaultTeamsTenantId;
  const bot = { id: `28:${options.appId}`, name: options.botName ?? "Resident" };
  const mention = options.mention ?? type !== "personal";
  const mentionText = `<at>${bot.name}</at>`;
  const baseConversationId = options.conversationId ?? defaultConversationIds[type];
  const conversationId =
    type === "channel" ? `${baseConversationId};messageid=${options.threadRootId ?? id}` : baseConversationId;
  const channelData: Record<string, unknown> = { tenant: { id: tenantId } };
  if (type === "channel") {
    channelData.teamsChannelId = baseConversationId;
    channelData.teamsTeamId = "19:team0001@thread.tacv2";
    channelData.channel = { id: baseConversationId };
    channelData.team = { id: "19:team0001@thread.tacv2" };
  }
  return {
    type: "message",
    id,
    timestamp: (options.timestamp ?? new Date()).toISOString(),
    serviceUrl: options.serviceUrl,
    channelId: "msteams",
    from: options.from ?? defaultTeamsUser,
    conversation: {
      ...(type === "personal" ? {} : { isGroup: true }),
      conversationType: type,
      tenantId,
      id: conversationId,
    },
    recipient: bot,
    textFormat: "plain",
    text: mention ? `${mentionText} ${options.text}` : options.text,
    entities: [
      ...(mention ? [{ type: "mention", mentioned: bot, text: mentionText }] : []),
      { type: "clientInfo", locale: "en-US", country: "US", platform: "Web", timezone: "Europe/Berlin" },
    ],
    channelData,
    locale: "en-US",
  };
}

export interface FeedbackInvokeOptions {
  appId: string;
  serviceUrl: string;
  /** The bot's answer that was rated: its conversation and the id the connector gave it. */
  answer: { conversationId: string; id: string };
  reaction: "like" | "dislike";
  conversationType?: TeamsConversationType;
  from?: TeamsAccount;
  tenantId?: string;
  /** The invoke's own activity id; default a new one. A redelivery of one click carries the same. */
  id?: string;
}

/**
 * What Teams posts when someone clicks 👍 or 👎 under an answer sent with the feedback loop on: an `invoke` named
 * message/submitAction, actionName "feedback", replyToId the answer's activity id (as the Teams AI library's
 * FeedbackLoopData and Microsoft's feedback-loop docs describe it; `feedback` carries the words typed, as JSON).
 */
export function feedbackInvoke(options: FeedbackInvokeOptions): TeamsActivity {
  const tenantId = options.tenantId ?? defaultTeamsTenantId;
  return {
    type: "invoke",
    name: "message/submitAction",
    id: options.id ?? `f:${nextTeamsMessageId()}`,
    timestamp: new Date().toISOString(),
    serviceUrl: options.serviceUrl,
    channelId: "msteams",
    from: options.from ?? defaultTeamsUser,
    conversation: {
      conversationType: options.conversationType ?? "personal",
      tenantId,
      id: options.answer.conversationId,
    },
    recipient: { id: `28:${options.appId}`, name: "Resident" },
    replyToId: options.answer.id,
    value: {
      actionName: "feedback",
      actionValue: { reaction: options.reaction, feedback: JSON.stringify({ feedbackText: "" }) },
    },
    channelData: { tenant: { id: tenantId } },
    locale: "en-US",
  };
}
