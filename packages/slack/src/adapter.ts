import {
  type BotIdentity,
  type CredentialStore,
  type Inbound,
  type InboundRequest,
  InvalidCredentialsError,
  type Logger,
  MemoryCredentialStore,
  type OutboundReply,
  type PlatformAdapter,
  type QueuedEvent,
  type RateLimiter,
  RotatingTokens,
  type SentReply,
  type ThreadMessage,
  VerificationError,
  type Workspace,
} from "@resident/core";
import type { AuthTestResponse } from "@slack/web-api";
import { SlackClients } from "./api.ts";
import { SlackAssistant } from "./assistant.ts";
import { BotCalls } from "./bot-calls.ts";
import type { SlackCredentials } from "./credentials.ts";
import { toConnectError } from "./errors.ts";
import { normalizeInteraction } from "./interaction.ts";
import { normalizeDelivery } from "./normalize.ts";
import { findPostedReply, postReply } from "./send.ts";
import { isSslCheck } from "./ssl-check.ts";
import { SlackStreams } from "./stream.ts";
import { distributedAppLimits, readThread, type ThreadReadLimits } from "./thread.ts";
import { type SlackApp, slackTokenRotation } from "./token-refresh.ts";
import { verifyDelivery } from "./verify.ts";

export interface SlackAdapterOptions {
  /** The Web API base (SLACK_API_URL); default https://slack.com/api/. */
  apiUrl?: string;
  /** How long one Web API call may take before its outcome counts as unknown; default 10 s. */
  timeoutMs?: number;
  /** Receives app_rate_limited notices and the Web API client's warnings. */
  logger?: Logger;
  /** Cluster-wide windows for the streamed writes' and the thread reads' rate limits; without one, threads are not read. */
  limiter?: RateLimiter;
  /** Slack's limits for apps distributed outside the Marketplace by default. */
  threadReads?: ThreadReadLimits;
  /** Where a rotated bot token is stored, once across the cluster; default: this process only. */
  credentials?: CredentialStore;
  /** The app's client id and secret, which refresh a rotating bot token; without them it is not refreshed. */
  app?: SlackApp;
  /** How long before its expiry a rotating bot token is refreshed; default 5 minutes. */
  refreshMarginMs?: number;
}

/** Slack through the Events API (HTTP) and the Web API. See README.md for what it answers and why. */
export class SlackAdapter implements PlatformAdapter<SlackCredentials> {
  readonly platform = "slack";
  readonly streams: SlackStreams;
  readonly working: SlackAssistant;
  private readonly clients: SlackClients;
  private readonly calls: BotCalls;

  constructor(private readonly options: SlackAdapterOptions = {}) {
    this.clients = new SlackClients({
      apiUrl: options.apiUrl ?? "https://slack.com/api/",
      timeoutMs: options.timeoutMs ?? 10_000,
      logger: options.logger,
    });
    const tokens = new RotatingTokens({
      store: options.credentials ?? new MemoryCredentialStore(),
      rotation: slackTokenRotation(this.clients.anonymous(), options.app),
      marginMs: options.refreshMarginMs,
    });
    this.calls = new BotCalls(this.clients, tokens);
    this.streams = new SlackStreams(this.calls, options.limiter);
    this.working = new SlackAssistant(this.calls);
  }

  async verify(request: InboundRequest, workspace: Workspace<SlackCredentials>, now: number): Promise<void> {
    if (isSslCheck(request)) return;
    const { signingSecret } = workspace.credentials;
    if (!signingSecret) {
      throw new VerificationError("this workspace takes its events over Socket Mode or at the app's own Request URL");
    }
    verifyDelivery(request, signingSecret, now);
  }

  normalize(request: InboundRequest, workspace: Workspace<SlackCredentials>, receivedAt: number): Inbound {
    if (request.endpoint === "interactions") return normalizeInteraction(request, workspace, receivedAt);
    return normalizeDelivery(request, workspace, receivedAt, this.options.logger, (thread) =>
      this.working.threadStarted(thread, workspace),
    );
  }

  send(reply: OutboundReply, workspace: Workspace<SlackCredentials>): Promise<SentReply> {
    return postReply(this.calls.for(workspace), reply);
  }

  findReply(reply: OutboundReply, workspace: Workspace<SlackCredentials>): Promise<SentReply | undefined> {
    return findPostedReply(this.calls.for(workspace), reply);
  }

  threadMessages(event: QueuedEvent, workspace: Workspace<SlackCredentials>, limit: number): Promise<ThreadMessage[]> {
    const { limiter, threadReads = distributedAppLimits } = this.options;
    const { id, threadId } = event.conversation;
    if (!limiter || !threadId) return Promise.resolve([]);
    const scope = workspace.identity.teamId ?? workspace.id;
    return readThread(this.calls.for(workspace), limiter, threadReads, scope, id, threadId, limit);
  }

  /**
   * auth.test: the bot user, bot and team behind the token. The app itself is each event's api_app_id. An app-level
   * token is checked with apps.connections.open, which only hands out a URL and opens nothing.
   */
  async connect(credentials: SlackCredentials): Promise<BotIdentity> {
    let result: AuthTestResponse;
    try {
      result = await this.clients.for(credentials.botToken).auth.test();
    } catch (error) {
      throw toConnectError(error);
    }
    try {
      if (credentials.appToken) await this.clients.for(credentials.appToken).apps.connections.open();
    } catch (error) {
      throw toConnectError(error, "app-level token");
    }
    const { user_id: botUserId, bot_id: botId, team_id: teamId, app_id: appId } = result;
    if (!botUserId || !botId || !teamId) {
      throw new InvalidCredentialsError("auth.test did not describe a bot: botToken must be the app's bot token");
    }
    // auth.test does not always name the app; when it does, it joins the self-loop guard.
    return { botUserId, botId, teamId, ...(appId ? { appId } : {}) };
  }
}
