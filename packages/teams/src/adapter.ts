import type {
  BotIdentity,
  Inbound,
  InboundRequest,
  Logger,
  OutboundReply,
  PlatformAdapter,
  SentReply,
  Workspace,
} from "@resident/core";
import type { BotFrameworkAuthentication } from "botframework-connector";
import { LRUCache } from "lru-cache";
import { BotTokenClient } from "./bot-token.ts";
import type { TeamsCredentials } from "./credentials.ts";
import { microsoftEndpoints, type TeamsEndpoints } from "./endpoints.ts";
import { normalizeDelivery } from "./normalize.ts";
import { parseDelivery } from "./payload.ts";
import { ReplySender } from "./send.ts";
import { TeamsStreams, TeamsTyping } from "./stream.ts";
import { ThrottleBackoff } from "./throttle-backoff.ts";
import { channelAuthentication, verifyDelivery } from "./verify.ts";

export interface TeamsAdapterOptions {
  /** TEAMS_OPENID_METADATA_URL; absent: Microsoft's. */
  openIdMetadataUrl?: string;
  /** TEAMS_TOKEN_ISSUER; absent: https://api.botframework.com. */
  tokenIssuer?: string;
  /** TEAMS_LOGIN_URL, the login host without a tenant; absent: https://login.microsoftonline.com. */
  loginUrl?: string;
  /** How long one call to the connector or the login endpoint may take. Default 10 s. */
  timeoutMs?: number;
  logger?: Logger;
}

/** One bot registration's clients: botbuilder's channel authentication and the bot's token. */
interface BotClients {
  credentials: TeamsCredentials;
  auth: BotFrameworkAuthentication;
  tokens: BotTokenClient;
}

/** Microsoft Teams through the Bot Framework: one bot registration per workspace, many per service. */
export class TeamsAdapter implements PlatformAdapter<TeamsCredentials> {
  readonly platform = "teams";
  private readonly endpoints: TeamsEndpoints;
  private readonly timeoutMs: number;
  readonly streams: TeamsStreams;
  readonly working: TeamsTyping;
  private readonly sender: ReplySender;
  private readonly bots = new LRUCache<string, BotClients>({ max: 1_000 });

  constructor(options: TeamsAdapterOptions = {}) {
    // An empty value (an env var set to "") counts as absent.
    this.endpoints = {
      openIdMetadataUrl: options.openIdMetadataUrl || microsoftEndpoints.openIdMetadataUrl,
      tokenIssuer: options.tokenIssuer || microsoftEndpoints.tokenIssuer,
      loginUrl: options.loginUrl || microsoftEndpoints.loginUrl,
    };
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.sender = new ReplySender(new ThrottleBackoff(), this.timeoutMs, options.logger);
    const tokens = (workspace: Workspace<TeamsCredentials>) => this.bot(workspace).tokens;
    this.streams = new TeamsStreams(this.sender, tokens);
    this.working = new TeamsTyping(this.sender, tokens);
  }

  async verify(request: InboundRequest, workspace: Workspace<TeamsCredentials>, _now: number): Promise<void> {
    await verifyDelivery(request, this.bot(workspace).auth);
  }

  normalize(request: InboundRequest, workspace: Workspace<TeamsCredentials>, receivedAt: number): Inbound {
    return normalizeDelivery(parseDelivery(request.rawBody), workspace, receivedAt);
  }

  send(reply: OutboundReply, workspace: Workspace<TeamsCredentials>): Promise<SentReply> {
    return this.sender.send(reply, workspace, this.bot(workspace).tokens);
  }

  async connect(credentials: TeamsCredentials): Promise<BotIdentity> {
    await new BotTokenClient(credentials, this.endpoints, this.timeoutMs).token();
    return { appId: credentials.appId, botId: `28:${credentials.appId}` };
  }

  /** The workspace's bot clients, rebuilt when its credentials change. */
  private bot(workspace: Workspace<TeamsCredentials>): BotClients {
    const credentials = workspace.credentials;
    const cached = this.bots.get(workspace.id);
    if (cached && sameCredentials(cached.credentials, credentials)) return cached;
    const bot = {
      credentials,
      auth: channelAuthentication(credentials, this.endpoints),
      tokens: new BotTokenClient(credentials, this.endpoints, this.timeoutMs),
    };
    this.bots.set(workspace.id, bot);
    return bot;
  }
}

function sameCredentials(a: TeamsCredentials, b: TeamsCredentials): boolean {
  return (
    a.appId === b.appId && a.appPassword === b.appPassword && a.appType === b.appType && a.appTenantId === b.appTenantId
  );
}
