import { randomUUID } from "node:crypto";
import type { SlackBotIds } from "./bot.ts";
import { nextTs, slackId } from "./ids.ts";

/*
 * Events API bodies shaped like the real ones in /work/shared/fixtures/slack (bolt-python fixtures, Slack docs).
 * Every builder takes the bot the delivery is for: its team and app make the envelope, its user is mentioned.
 */

export interface SlackEventEnvelope {
  type: "event_callback";
  token: string;
  team_id: string;
  api_app_id: string;
  event: SlackEvent;
  event_id: string;
  event_time: number;
  enterprise_id?: string;
  authorizations: {
    enterprise_id?: string;
    team_id: string;
    user_id: string;
    is_bot: boolean;
    is_enterprise_install: boolean;
  }[];
  is_ext_shared_channel: boolean;
  event_context: string;
}

export interface SlackEvent {
  type: string;
  channel: string;
  ts: string;
  event_ts: string;
  [field: string]: unknown;
}

export interface MessageOptions {
  /** The person writing (default: a fresh user id). */
  user?: string;
  /** Default: a fresh channel id (C…, or D… for a direct message). */
  channel?: string;
  /** Default: a fresh ts. */
  ts?: string;
  /** A reply inside a thread: the parent message's ts. */
  threadTs?: string;
  /** Default: a fresh event id. */
  eventId?: string;
}

/** A person mentioning the bot in a channel (`app_mention`); `text` is what follows the mention. */
export function appMention(bot: SlackBotIds, text: string, options: MessageOptions = {}): SlackEventEnvelope {
  return envelope(bot, options, { ...personMessage(bot, options, `<@${bot.userId}> ${text}`), type: "app_mention" });
}

/** The same kind of message as the `message.channels` subscription delivers it: the twin of an app_mention. */
export function channelMessage(bot: SlackBotIds, text: string, options: MessageOptions = {}): SlackEventEnvelope {
  return envelope(bot, options, {
    ...personMessage(bot, options, `<@${bot.userId}> ${text}`),
    type: "message",
    channel_type: "channel",
  });
}

/** The other delivery of the same user message (app_mention ⇄ message.channels), under its own event id. */
export function twinOf(delivery: SlackEventEnvelope): SlackEventEnvelope {
  const { channel_type: _channelType, ...event } = delivery.event;
  const twin =
    event.type === "app_mention"
      ? { ...event, type: "message", channel_type: "channel" }
      : { ...event, type: "app_mention" };
  return { ...delivery, event: twin, event_id: slackId("Ev"), event_time: Math.floor(Date.now() / 1000) };
}

/** A person writing to the bot in a direct message (`message.im`); no mention needed. */
export function directMessage(bot: SlackBotIds, text: string, options: MessageOptions = {}): SlackEventEnvelope {
  const channel = options.channel ?? slackId("D");
  return envelope(bot, options, {
    ...personMessage(bot, { ...options, channel }, text),
    type: "message",
    channel_type: "im",
  });
}

/**
 * Someone opening a new assistant thread with the app (`assistant_thread_started`): its channel is the app's DM,
 * its thread_ts the thread's root. A message in that thread is `directMessage(bot, text, {channel, threadTs})`.
 */
export function assistantThreadStarted(
  bot: SlackBotIds,
  options: { channel?: string; threadTs?: string; user?: string } = {},
): SlackEventEnvelope {
  const channel = options.channel ?? slackId("D");
  const threadTs = options.threadTs ?? nextTs();
  return envelope(
    bot,
    {},
    {
      type: "assistant_thread_started",
      channel,
      ts: threadTs,
      event_ts: nextTs(),
      assistant_thread: {
        user_id: options.user ?? slackId("U"),
        context: {},
        channel_id: channel,
        thread_ts: threadTs,
      },
    },
  );
}

/** Another app's bot mentioning ours in a channel: bot_id and bot_profile, no subtype (as Slack sends it). */
export function botMessage(bot: SlackBotIds, text: string, options: MessageOptions = {}): SlackEventEnvelope {
  const otherBotId = slackId("B");
  return envelope(bot, options, {
    ...messageBase(bot, options, `<@${bot.userId}> ${text}`),
    type: "message",
    bot_id: otherBotId,
    bot_profile: { id: otherBotId, deleted: false, name: "other-app", app_id: slackId("A"), team_id: bot.teamId },
    channel_type: "channel",
  });
}

/** A message our own bot posted (e.g. its reply), as message.channels delivers it back to us. */
export function ownMessage(bot: SlackBotIds, text = "an answer", options: MessageOptions = {}): SlackEventEnvelope {
  return envelope(bot, options, {
    ...messageBase(bot, { ...options, user: bot.userId }, text),
    type: "message",
    bot_id: bot.botId,
    app_id: bot.appId,
    bot_profile: { id: bot.botId, deleted: false, name: "resident", app_id: bot.appId, team_id: bot.teamId },
    channel_type: "channel",
  });
}

/** A person editing an earlier message that mentioned the bot: subtype message_changed, hidden, a new outer ts. */
export function messageChanged(
  bot: SlackBotIds,
  text: string,
  options: MessageOptions & { previousText?: string } = {},
): SlackEventEnvelope {
  const user = options.user ?? slackId("U");
  const editedTs = options.ts ?? nextTs();
  const ts = nextTs();
  return envelope(bot, options, {
    type: "message",
    subtype: "message_changed",
    message: {
      type: "message",
      text: `<@${bot.userId}> ${text}`,
      user,
      team: bot.teamId,
      edited: { user, ts },
      ts: editedTs,
    },
    previous_message: {
      type: "message",
      text: `<@${bot.userId}> ${options.previousText ?? "before the edit"}`,
      user,
      team: bot.teamId,
      ts: editedTs,
    },
    channel: options.channel ?? slackId("C"),
    hidden: true,
    ts,
    event_ts: ts,
    channel_type: "channel",
  });
}

/** Slack telling the app it was removed from the bot's workspace (`app_uninstalled`). */
export function appUninstalled(bot: SlackBotIds): SlackEventEnvelope {
  const ts = nextTs();
  return envelope(bot, {}, { type: "app_uninstalled", channel: "", ts, event_ts: ts });
}

/** Slack telling the app that tokens were revoked: the bot's own unless only user tokens are given. */
export function tokensRevoked(bot: SlackBotIds, tokens: { oauth?: string[]; bot?: string[] } = {}): SlackEventEnvelope {
  const ts = nextTs();
  const revoked = tokens.oauth || tokens.bot ? tokens : { bot: [bot.userId] };
  return envelope(bot, {}, { type: "tokens_revoked", channel: "", ts, event_ts: ts, tokens: revoked });
}

/** The handshake Slack sends when the Request URL is saved. */
export function urlVerification(challenge: string = randomUUID()): {
  token: string;
  challenge: string;
  type: "url_verification";
} {
  return { token: verificationToken, challenge, type: "url_verification" };
}

// The deprecated verification token every body still carries; nothing should rely on it.
const verificationToken = "fake-verification-token";

/** What a person typed carries a client_msg_id; what a bot posted does not. */
function personMessage(bot: SlackBotIds, options: MessageOptions, text: string): SlackEvent {
  return { ...messageBase(bot, options, text), client_msg_id: randomUUID() };
}

function messageBase(bot: SlackBotIds, options: MessageOptions, text: string): SlackEvent {
  const ts = options.ts ?? nextTs();
  return {
    type: "message",
    text,
    user: options.user ?? slackId("U"),
    ts,
    team: bot.teamId,
    channel: options.channel ?? slackId("C"),
    event_ts: ts,
    ...(options.threadTs ? { thread_ts: options.threadTs, parent_user_id: slackId("U") } : {}),
  };
}

function envelope(bot: SlackBotIds, options: MessageOptions, event: SlackEvent): SlackEventEnvelope {
  const enterprise = bot.enterpriseId ? { enterprise_id: bot.enterpriseId } : {};
  return {
    type: "event_callback",
    token: verificationToken,
    team_id: bot.teamId,
    ...enterprise,
    api_app_id: bot.appId,
    event,
    event_id: options.eventId ?? slackId("Ev"),
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        ...enterprise,
        team_id: bot.teamId,
        user_id: bot.userId,
        is_bot: true,
        is_enterprise_install: bot.enterpriseInstall ?? false,
      },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${Buffer.from(`${bot.teamId}:${event.channel}`).toString("base64url")}`,
  };
}
