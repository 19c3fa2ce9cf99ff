import { randomBytes } from "node:crypto";
import type { FakeResponse, RecordedCall } from "../fake-server.ts";
import type { FakeSlackBot } from "./fake-slack.ts";

/** The app's OAuth credentials, as Slack's app settings show them (what SLACK_CLIENT_ID / _SECRET are set to). */
export interface FakeSlackApp {
  clientId: string;
  clientSecret: string;
}

/** A bot token set as Slack hands it out with token rotation on. */
export interface FakeTokenSet {
  botToken: string;
  botRefreshToken: string;
  /** Epoch ms. */
  botTokenExpiresAt: number;
}

export interface FakeTokenRotationOptions {
  /** How long an issued access token lives; Slack's is 12 hours. */
  lifetimeMs?: number;
}

const twelveHours = 12 * 3_600_000;

/**
 * Slack's token rotation: access tokens (`xoxe.xoxb-`) that stop working at their expiry (`token_expired`), and
 * oauth.v2.access with grant_type=refresh_token, which spends a refresh token (`xoxe-1-`) once for a new pair: a
 * refresh token used again, or never issued, is answered `invalid_refresh_token`, as Slack does. The old access
 * token keeps working until its own expiry. Every refresh is recorded with what it was answered.
 */
export class FakeTokenRotation {
  readonly app: FakeSlackApp = {
    clientId: `${Date.now()}.${randomBytes(4).readUInt32BE()}`,
    clientSecret: randomBytes(16).toString("hex"),
  };
  /** Every refresh asked for, in order: the refresh token given and the error answered, if any. */
  readonly refreshes: { refreshToken: string; at: number; error?: string; issued?: string }[] = [];
  private readonly accessTokens = new Map<string, { bot: FakeSlackBot; expiresAt: number }>();
  private readonly refreshTokens = new Map<string, { bot: FakeSlackBot; spent: boolean }>();
  private readonly lifetimeMs: number;
  private issued = 0;

  constructor(options: FakeTokenRotationOptions = {}) {
    this.lifetimeMs = options.lifetimeMs ?? twelveHours;
  }

  /** Issues a token set to `bot`, expiring in `lifetimeMs` (default the rotation's lifetime). */
  issue(bot: FakeSlackBot, lifetimeMs = this.lifetimeMs): FakeTokenSet {
    this.issued++;
    const botToken = `xoxe.xoxb-${this.issued}-${randomBytes(12).toString("hex")}`;
    const botRefreshToken = `xoxe-1-${randomBytes(16).toString("hex")}`;
    const botTokenExpiresAt = Date.now() + lifetimeMs;
    this.accessTokens.set(botToken, { bot, expiresAt: botTokenExpiresAt });
    this.refreshTokens.set(botRefreshToken, { bot, spent: false });
    return { botToken, botRefreshToken, botTokenExpiresAt };
  }

  /** The bot behind a rotated access token; "token_expired" past its expiry; undefined if never issued. */
  bot(token: string): FakeSlackBot | "token_expired" | undefined {
    const held = this.accessTokens.get(token);
    if (!held) return undefined;
    return Date.now() >= held.expiresAt ? "token_expired" : held.bot;
  }

  /** Ends an access token now, as if its 12 hours were up. */
  expire(token: string): void {
    const held = this.accessTokens.get(token);
    if (held) held.expiresAt = Date.now();
  }

  /** Refreshes that were answered with a new token set. */
  successfulRefreshes(): number {
    return this.refreshes.filter((refresh) => refresh.issued).length;
  }

  /** oauth.v2.access: the app's id and secret (form fields or HTTP Basic), then the grant. */
  access(call: RecordedCall): FakeResponse {
    const params = { ...Object.fromEntries(call.query), ...(isParams(call.body) ? call.body : {}) };
    const basic = /^Basic (.+)$/.exec(call.headers.authorization ?? "")?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, "base64").toString("utf8").split(":") : [];
    const clientId = basicId ?? params.client_id;
    const clientSecret = basicSecret ?? params.client_secret;
    if (clientId !== this.app.clientId) return slackError("invalid_client_id");
    if (clientSecret !== this.app.clientSecret) return slackError("bad_client_secret");
    if (params.grant_type !== "refresh_token") return slackError("invalid_grant_type");
    const refreshToken = typeof params.refresh_token === "string" ? params.refresh_token : "";
    const record: (typeof this.refreshes)[number] = { refreshToken, at: Date.now() };
    this.refreshes.push(record);
    const held = this.refreshTokens.get(refreshToken);
    if (!held || held.spent) {
      record.error = "invalid_refresh_token";
      return slackError(record.error);
    }
    held.spent = true;
    const next = this.issue(held.bot);
    record.issued = next.botToken;
    return {
      status: 200,
      body: {
        ok: true,
        app_id: held.bot.appId,
        access_token: next.botToken,
        expires_in: Math.round((next.botTokenExpiresAt - Date.now()) / 1000),
        refresh_token: next.botRefreshToken,
        token_type: "bot",
        scope: "app_mentions:read,chat:write,channels:history",
        bot_user_id: held.bot.userId,
        team: { id: held.bot.teamId, name: held.bot.teamName },
        enterprise: null,
        is_enterprise_install: false,
      },
    };
  }
}

function isParams(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function slackError(error: string): FakeResponse {
  return { status: 200, body: { ok: false, error } };
}
