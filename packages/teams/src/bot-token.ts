import { InvalidCredentialsError } from "@resident/core";
import type { TeamsCredentials } from "./credentials.ts";
import { botFrameworkScope, type TeamsEndpoints, tokenEndpoint } from "./endpoints.ts";

/** Renew this long before the token expires, so a send never carries one that lapses in flight. */
const renewBeforeExpiryMs = 5 * 60_000;

interface TokenAnswer {
  access_token?: unknown;
  expires_in?: unknown;
  error?: unknown;
  error_description?: unknown;
}

/**
 * The bot→channel token, by OAuth 2 client credentials at `<loginUrl>/<authority>/oauth2/v2.0/token` (bot-docs,
 * "Authenticate requests from your bot to the Bot Connector service"). Hand-written rather than botbuilder's
 * MSAL-based credentials because msal-node refuses an http:// authority, and TEAMS_LOGIN_URL must be able to point
 * at a fake on loopback; one path for both means the tested path is the production one. Cached until shortly before
 * it expires; concurrent callers share one request.
 */
export class BotTokenClient {
  private cached?: { token: string; renewAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly credentials: TeamsCredentials,
    private readonly endpoints: TeamsEndpoints,
    private readonly timeoutMs: number,
  ) {}

  token(): Promise<string> {
    if (this.cached && Date.now() < this.cached.renewAt) return Promise.resolve(this.cached.token);
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forgets the cached token (the connector refused it). */
  invalidate(): void {
    this.cached = undefined;
  }

  private async fetchToken(): Promise<string> {
    const { appId, appPassword } = this.credentials;
    const response = await fetch(tokenEndpoint(this.credentials, this.endpoints), {
      method: "POST",
      // A redirect would carry the client secret to wherever it points: refused, not followed.
      redirect: "error",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: appId,
        client_secret: appPassword,
        scope: botFrameworkScope,
      }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const answer = (await response.json().catch(() => ({}))) as TokenAnswer;
    if (response.ok && typeof answer.access_token === "string") {
      const lifetimeMs = (typeof answer.expires_in === "number" ? answer.expires_in : 3600) * 1000;
      this.cached = { token: answer.access_token, renewAt: Date.now() + lifetimeMs - renewBeforeExpiryMs };
      return answer.access_token;
    }
    const said = String(answer.error_description ?? answer.error ?? `HTTP ${response.status}`);
    const reason = said.replaceAll(appPassword, "[redacted]");
    if (response.status === 400 || response.status === 401) {
      throw new InvalidCredentialsError(`Microsoft login refused app ${appId}: ${reason}`);
    }
    throw new Error(`Microsoft login answered ${response.status}: ${reason}`);
  }
}
