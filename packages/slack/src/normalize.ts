import {
  type BotIdentity,
  type Inbound,
  type InboundRequest,
  type Logger,
  MalformedPayloadError,
  parseJsonBody,
  parsePayload,
  type RetryNotice,
  singleHeader,
  type Workspace,
} from "@resident/core";
import { type AssistantThread, assistantAddress } from "./assistant.ts";
import {
  appRateLimitedSchema,
  assistantThreadStartedSchema,
  eventCallbackSchema,
  type MessageEvent,
  messageEventSchema,
  typeOf,
  urlVerificationSchema,
} from "./payload.ts";
import { revocationOf } from "./revocation.ts";
import { isSslCheck } from "./ssl-check.ts";

/** Subtypes that are still a person writing a message; every other subtype is an edit, a delete or a notice. */
const userSubtypes = new Set(["file_share", "thread_broadcast"]);

/**
 * Turns a verified Events API delivery into a ChatEvent, a handshake answer or nothing (README.md, "Policy").
 * The bot's identity comes from `workspace.identity` (auth.test at connect); the app is the envelope's api_app_id.
 */
export function normalizeDelivery(
  request: InboundRequest,
  workspace: Workspace,
  receivedAt: number,
  logger?: Logger,
  onThreadStarted?: (thread: AssistantThread) => Promise<void>,
): Inbound {
  const retry = retryNotice(request.headers);
  const ignore = (reason: string): Inbound => ({ kind: "ignore", reason, retry });
  if (isSslCheck(request)) return { kind: "respond", status: 200, body: { ok: true } };

  const body = parseJsonBody(request.rawBody);
  const type = typeOf(body, "Events API body");
  switch (type) {
    case "url_verification": {
      const { challenge } = parsePayload(urlVerificationSchema, body, "url_verification");
      return { kind: "respond", status: 200, body: { challenge } };
    }
    case "app_rate_limited": {
      const notice = parsePayload(appRateLimitedSchema, body, "app_rate_limited");
      logger?.warn(
        { workspaceId: workspace.id, teamId: notice.team_id, minuteRateLimited: notice.minute_rate_limited },
        "Slack is dropping this app's events for a minute (app_rate_limited)",
      );
      return ignore("app_rate_limited: Slack's notice that it is dropping events for a minute");
    }
    case "event_callback":
      break;
    default:
      return ignore(`${type} bodies are not handled`);
  }

  const envelope = parsePayload(eventCallbackSchema, body, "event_callback");
  const revoked = revocationOf(envelope.event);
  if (revoked) return { kind: "revoked", reason: revoked, retry };
  if (envelope.event.type === "assistant_thread_started" && onThreadStarted) {
    const { assistant_thread: thread } = parsePayload(assistantThreadStartedSchema, envelope.event, "event");
    const started = { channel: thread.channel_id, threadTs: thread.thread_ts };
    return { kind: "notice", reason: "assistant_thread_started", retry, act: () => onThreadStarted(started) };
  }
  if (envelope.event.type !== "app_mention" && envelope.event.type !== "message") {
    return ignore(`${envelope.event.type} events are not handled`);
  }
  const event = parsePayload(messageEventSchema, envelope.event, "event");
  const reason = reasonToIgnore(event, envelope.api_app_id, workspace.identity);
  if (reason) return ignore(reason);

  const { user, channel, ts } = event;
  if (!user || !channel || !ts)
    throw new MalformedPayloadError(`malformed ${event.type} event: user, channel and ts are required`);
  return {
    kind: "message",
    retry,
    event: {
      platform: "slack",
      tenantId: workspace.tenantId,
      workspaceId: workspace.id,
      eventId: `${envelope.api_app_id}:${envelope.event_id}`,
      // app_mention and its message.channels twin carry the same channel and ts.
      messageKey: `${channel}:${ts}`,
      conversation: {
        id: channel,
        threadId: event.thread_ts ?? ts,
        replyToId: ts,
        // A threaded message in the app's DM is in an assistant thread, the app's own surface.
        address: event.channel_type === "im" && event.thread_ts ? { ...assistantAddress } : undefined,
      },
      author: { id: user, isBot: false, isSelf: false },
      text: stripMention(event.text ?? "", workspace.identity),
      receivedAt,
    },
  };
}

/** Why a message event is not for us, or undefined when it is (README.md, "Policy"). */
function reasonToIgnore(event: MessageEvent, appId: string, identity: BotIdentity): string | undefined {
  const ownApp = event.bot_profile?.app_id;
  const own =
    (identity.botId !== undefined && event.bot_id === identity.botId) ||
    (identity.botUserId !== undefined && event.user === identity.botUserId) ||
    (ownApp !== undefined && (ownApp === appId || ownApp === identity.appId));
  if (own) return "our own message";
  if (event.bot_id !== undefined || event.subtype === "bot_message") return "another bot's message";
  if (event.subtype !== undefined && !userSubtypes.has(event.subtype))
    return `${event.subtype} messages are not answered`;
  if (
    event.type === "message" &&
    event.channel_type !== "im" &&
    !mentionsOf(identity)?.mentioned.test(event.text ?? "")
  ) {
    return "a channel message that does not mention the bot";
  }
  return undefined;
}

/** The bot's mentions, `<@U123>` or the legacy `<@U123|name>`: one pattern to test for one, one to strip them all. */
interface MentionPatterns {
  mentioned: RegExp;
  every: RegExp;
}

/** Made once per identity (each workspace's, as long as it is cached), not once per delivery. */
const mentionPatterns = new WeakMap<BotIdentity, MentionPatterns | undefined>();

/** Undefined while the bot user is unknown (Slack ids are alphanumeric). */
function mentionsOf(identity: BotIdentity): MentionPatterns | undefined {
  if (mentionPatterns.has(identity)) return mentionPatterns.get(identity);
  const { botUserId } = identity;
  const source = botUserId && /^[A-Za-z0-9]+$/.test(botUserId) ? `<@${botUserId}(?:\\|[^>]*)?>[ \\t]*` : undefined;
  const patterns = source ? { mentioned: new RegExp(source), every: new RegExp(source, "g") } : undefined;
  mentionPatterns.set(identity, patterns);
  return patterns;
}

function stripMention(text: string, identity: BotIdentity): string {
  const patterns = mentionsOf(identity);
  return (patterns ? text.replace(patterns.every, "") : text).trim();
}

function retryNotice(headers: InboundRequest["headers"]): RetryNotice | undefined {
  const attempt = Number(singleHeader(headers, "x-slack-retry-num"));
  if (!Number.isInteger(attempt) || attempt < 1) return undefined;
  return { attempt, reason: singleHeader(headers, "x-slack-retry-reason") ?? "unknown" };
}
