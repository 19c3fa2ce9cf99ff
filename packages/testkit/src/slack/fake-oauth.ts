import { randomBytes } from "node:crypto";
import type { FakeResponse, RecordedCall } from "../fake-server.ts";
import type { FakeSlackBot } from "./fake-slack.ts";
import type { FakeTokenRotation, FakeTokenSet } from "./fake-token-rotation.ts";
import { slackId } from "./ids.ts";

/**
 * The operator's distributed app as the fake Slack knows it: the rotation's app (one Slack app: what SLACK_CLIENT_ID
 * / SLACK_CLIENT_SECRET are set to), and its app id.
 */
export interface FakeOAuthApp {
  clientId: string;
  clientSecret: string;
  appId: string;
  /** Token rotation on: installs grant an `xoxe.xoxb-` token that expires after this many seconds, and a refresh token. */
  expiresInSeconds?: number;
}

/** Where an admin may install the app: a workspace, or (orgWide) a whole Enterprise Grid org. */
export interface FakeInstallTarget {
  teamId: string;
  teamName: string;
  enterpriseId?: string;
  enterpriseName?: string;
  orgWide?: boolean;
}

interface PendingCode {
  target: FakeInstallTarget;
  redirectUri: string;
  scopes: string;
  used: boolean;
}

type Params = Record<string, unknown>;

/**
 * Slack's side of OAuth v2 for one app: the authorize page a browser is sent to (a button per workspace offered,
 * as Slack's own page lets the admin pick one), its redirect back with a one-time code, and oauth.v2.access, which
 * exchanges the code for a bot token installed in the fake Slack. Every call is recorded by the fake's server.
 */
export class FakeOAuth {
  private app?: FakeOAuthApp;
  private readonly targets: FakeInstallTarget[] = [];
  private readonly codes = new Map<string, PendingCode>();
  private readonly granted: FakeSlackBot[] = [];

  constructor(
    private readonly rotation: FakeTokenRotation,
    private readonly slack: {
      addBot(bot: Partial<FakeSlackBot>): FakeSlackBot;
      addRotatingBot(lifetimeMs: number, bot: Partial<FakeSlackBot>): FakeSlackBot & FakeTokenSet;
    },
  ) {}

  /** Registers the distributed app (the rotation's client id and secret); returns them and its app id. */
  enable(options: { appId?: string; expiresInSeconds?: number } = {}): FakeOAuthApp {
    this.app = { ...this.rotation.app, appId: options.appId ?? slackId("A"), ...options };
    return this.app;
  }

  /** The distributed app's id (api_app_id in its events), once enabled. */
  get appId(): string | undefined {
    return this.app?.appId;
  }

  /** Token rotation on (seconds a bot token lives) or off (undefined), for the installs from now on. */
  rotateTokens(expiresInSeconds: number | undefined): this {
    if (this.app) this.app.expiresInSeconds = expiresInSeconds;
    return this;
  }

  /** A workspace (or org) the authorize page offers; returns it. */
  offer(target: Partial<FakeInstallTarget> = {}): FakeInstallTarget {
    const n = this.targets.length + 1;
    const offered = { teamId: slackId("T"), teamName: `Installed Team ${n}`, ...target };
    this.targets.push(offered);
    return offered;
  }

  /** The bots installed through oauth.v2.access, in order. */
  bots(): FakeSlackBot[] {
    return [...this.granted];
  }

  /** Where the authorize page's "Allow" button for `target` leads: what a browser would go to, for tests without one. */
  approveUrl(authorizeUrl: string, target: FakeInstallTarget): string {
    const url = new URL(authorizeUrl);
    url.pathname = "/oauth/v2/authorize/approve";
    url.searchParams.set("target", targetId(target));
    return url.toString();
  }

  /** GET /oauth/v2/authorize: the consent page. */
  authorizePage(call: RecordedCall): FakeResponse {
    const q = call.query;
    const refused = this.refusal(q.get("client_id"), q.get("redirect_uri"));
    if (refused) return { status: 400, html: `<p>${refused}</p>` };
    const hidden = ["client_id", "scope", "state", "redirect_uri"]
      .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(q.get(name) ?? "")}">`)
      .join("");
    const forms = this.targets.map(
      (target) =>
        `<form method="get" action="/oauth/v2/authorize/approve">${hidden}` +
        `<input type="hidden" name="target" value="${escapeHtml(targetId(target))}">` +
        `<button type="submit">Allow in ${escapeHtml(installName(target))}</button></form>`,
    );
    return { status: 200, html: `<!doctype html><title>Fake Slack</title><h1>Install the app</h1>${forms.join("")}` };
  }

  /** GET /oauth/v2/authorize/approve: the admin allowed it; back to the app with a code. */
  approve(call: RecordedCall): FakeResponse {
    const q = call.query;
    const redirectUri = q.get("redirect_uri") ?? "";
    const refused = this.refusal(q.get("client_id"), redirectUri);
    const target = this.targets.find((t) => targetId(t) === q.get("target"));
    if (refused || !target) return { status: 400, html: `<p>${refused ?? "no such workspace"}</p>` };
    const code = `${Date.now()}.${randomBytes(12).toString("hex")}`;
    this.codes.set(code, { target, redirectUri, scopes: q.get("scope") ?? "", used: false });
    const back = new URL(redirectUri);
    back.searchParams.set("code", code);
    back.searchParams.set("state", q.get("state") ?? "");
    return { status: 302, headers: { location: back.toString() } };
  }

  /** POST /api/oauth.v2.access: the code (once) for a bot token; the client's id and secret must be the app's. */
  access(call: RecordedCall): FakeResponse {
    const params: Params = typeof call.body === "object" && call.body !== null ? (call.body as Params) : {};
    const { app } = this;
    if (!app || params.client_id !== app.clientId) return slackError("invalid_client_id");
    if (params.client_secret !== app.clientSecret) return slackError("bad_client_secret");
    const pending = this.codes.get(String(params.code ?? ""));
    if (!pending || pending.used) return slackError("invalid_code");
    if ((params.redirect_uri ?? pending.redirectUri) !== pending.redirectUri) return slackError("bad_redirect_uri");
    pending.used = true;
    const { target } = pending;
    const ids: Partial<FakeSlackBot> = {
      teamId: target.orgWide && target.enterpriseId ? target.enterpriseId : target.teamId,
      teamName: target.teamName,
      appId: app.appId,
      ...(target.enterpriseId ? { enterpriseId: target.enterpriseId } : {}),
      ...(target.orgWide ? { enterpriseInstall: true } : {}),
    };
    // With rotation on, a token set the rotation can refresh later; else a token that never expires.
    const { expiresInSeconds } = app;
    const rotating =
      expiresInSeconds === undefined ? undefined : this.slack.addRotatingBot(expiresInSeconds * 1000, ids);
    const bot = rotating ?? this.slack.addBot({ ...ids, token: `xoxb-${randomBytes(12).toString("hex")}` });
    this.granted.push(bot);
    return {
      status: 200,
      body: {
        ok: true,
        access_token: bot.token,
        token_type: "bot",
        scope: pending.scopes,
        bot_user_id: bot.userId,
        app_id: app.appId,
        team: target.orgWide ? null : { id: target.teamId, name: target.teamName },
        enterprise: target.enterpriseId ? { id: target.enterpriseId, name: target.enterpriseName ?? "" } : null,
        is_enterprise_install: Boolean(target.orgWide),
        authed_user: { id: slackId("U") },
        ...(rotating ? { refresh_token: rotating.botRefreshToken, expires_in: expiresInSeconds } : {}),
      },
    };
  }

  private refusal(clientId: string | null, redirectUri: string | null): string | undefined {
    if (!this.app || clientId !== this.app.clientId) return "invalid_client_id";
    if (!redirectUri || !/^https?:\/\//.test(redirectUri)) return "bad_redirect_uri";
    return undefined;
  }
}

const targetId = (target: FakeInstallTarget) => (target.orgWide && target.enterpriseId) || target.teamId;

function installName(target: FakeInstallTarget): string {
  return target.orgWide ? `${target.enterpriseName ?? target.enterpriseId} (every workspace)` : target.teamName;
}

function slackError(error: string): FakeResponse {
  return { status: 200, body: { ok: false, error } };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
