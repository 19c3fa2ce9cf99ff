import {
  type Logger,
  type OutboundReply,
  RateLimitedError,
  retryAfterMs,
  SendRejectedError,
  type SentReply,
  type Workspace,
} from "@resident/core";
import { leanFetch } from "@resident/http";
import type { BotTokenClient } from "./bot-token.ts";
import { conversationParts } from "./conversation-id.ts";
import type { TeamsCredentials } from "./credentials.ts";
import { isThrottled, toRefusalError, toTransportError } from "./errors.ts";
import { feedbackLoop } from "./feedback.ts";
import type { ThrottleBackoff } from "./throttle-backoff.ts";

/** A 2xx without an id in its body still posted the reply. */
const postedWithoutId = "posted-without-id";

/**
 * Posts a reply to the user's activity, once. Plain fetch rather than botframework-connector's ConnectorClient:
 * that client's pipeline (botbuilder-stdlib's ServiceClientContext over @azure/core-client) always carries
 * core-rest-pipeline's defaultRetryPolicy, which resends on 5xx, network errors and 429/503, and offers no public
 * option to drop it; a resend of a non-idempotent POST is a second answer. fetch also tells a request that never
 * connected (safe to retry) from one that may have landed (outcome unknown).
 */
export class ReplySender {
  constructor(
    private readonly backoff: ThrottleBackoff,
    private readonly timeoutMs: number,
    private readonly logger?: Logger,
  ) {}

  send(reply: OutboundReply, workspace: Workspace<TeamsCredentials>, tokens: BotTokenClient): Promise<SentReply> {
    return this.post(reply, workspace, tokens, {
      type: "message",
      text: reply.text,
      textFormat: "markdown",
      channelData: feedbackLoop,
    });
  }

  /** Posts one activity in answer to the user's (a message, a typing indicator, a streaming update), once. */
  post(
    reply: OutboundReply,
    workspace: Workspace<TeamsCredentials>,
    tokens: BotTokenClient,
    activity: Record<string, unknown>,
  ): Promise<SentReply> {
    return this.write("POST", reply.event.conversation.replyToId, reply, workspace, tokens, activity);
  }

  /** Replaces the bot's own message `activityId` with `activity` in place: an update, so safe to repeat. */
  update(
    reply: OutboundReply,
    workspace: Workspace<TeamsCredentials>,
    tokens: BotTokenClient,
    activityId: string,
    activity: Record<string, unknown>,
  ): Promise<SentReply> {
    return this.write("PUT", activityId, reply, workspace, tokens, { ...activity, id: activityId });
  }

  /** POST answers the user's activity `activityId`; PUT replaces the bot's activity `activityId`. */
  private async write(
    method: "POST" | "PUT",
    activityId: string,
    reply: OutboundReply,
    workspace: Workspace<TeamsCredentials>,
    tokens: BotTokenClient,
    activity: Record<string, unknown>,
  ): Promise<SentReply> {
    const { conversation, author } = reply.event;
    const address = conversation.address ?? {};
    if (!address.serviceUrl) throw new SendRejectedError("the event carries no Teams serviceUrl to answer to");
    let token: string;
    try {
      token = await tokens.token();
    } catch (error) {
      throw new SendRejectedError(`no bot token: ${error instanceof Error ? error.message : error}`, { cause: error });
    }
    const conversationPath = `v3/conversations/${encodeURIComponent(conversation.id)}`;
    const url = `${address.serviceUrl.replace(/\/?$/, "/")}${conversationPath}/activities/${encodeURIComponent(activityId)}`;
    const response = await this.request(method, url, token, workspace.id, {
      ...activity,
      replyToId: conversation.replyToId,
      from: { id: address.botId ?? `28:${workspace.credentials.appId}`, name: address.botName },
      recipient: { id: author.id, name: author.name },
      conversation: { id: conversation.id, conversationType: address.conversationType, tenantId: address.tenantId },
    });
    // Teams' limits are per conversation: a channel's reply chains share them.
    const throttleKey = `${workspace.id}:${conversationParts(conversation.id).base}`;
    return this.outcome(response, workspace.id, throttleKey, tokens);
  }

  private async request(
    method: string,
    url: string,
    token: string,
    workspaceId: string,
    activity: object,
  ): Promise<Response> {
    try {
      return await leanFetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json; charset=utf-8",
          accept: "application/json",
        },
        body: JSON.stringify(activity),
        redirect: "manual",
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const failure = toTransportError(error);
      if (!(failure instanceof SendRejectedError)) {
        this.logger?.warn({ workspaceId, err: error }, "Teams reply sent without an answer: not resent");
      }
      throw failure;
    }
  }

  private async outcome(
    response: Response,
    workspaceId: string,
    throttleKey: string,
    tokens: BotTokenClient,
  ): Promise<SentReply> {
    if (response.ok) {
      this.backoff.reset(throttleKey);
      const posted = (await response.json().catch(() => ({}))) as { id?: unknown };
      return { messageId: typeof posted.id === "string" && posted.id ? posted.id : postedWithoutId };
    }
    const detail = (await response.text().catch(() => "")).slice(0, 300);
    if (isThrottled(response.status)) {
      const waitMs = retryAfterMs(response.headers.get("retry-after")) ?? this.backoff.next(throttleKey);
      this.logger?.debug({ workspaceId, status: response.status, waitMs }, "Teams throttled a reply");
      throw new RateLimitedError(waitMs, `Teams answered ${response.status}; retry after ${waitMs} ms`);
    }
    if (response.status >= 500) {
      this.logger?.warn({ workspaceId, status: response.status }, "Teams reply outcome unknown: not resent");
    }
    if (response.status === 401) tokens.invalidate();
    throw toRefusalError(response.status, detail);
  }
}
