import { AuthenticationConstants } from "botframework-connector";
import type { TeamsCredentials } from "./credentials.ts";

/** Where the Bot Framework lives: Microsoft's public cloud, or a fake on loopback in tests. */
export interface TeamsEndpoints {
  /** TEAMS_OPENID_METADATA_URL: the channel's OpenID metadata, whose JWKS signs channel→bot tokens. */
  openIdMetadataUrl: string;
  /** TEAMS_TOKEN_ISSUER: the `iss` of channel→bot tokens. */
  tokenIssuer: string;
  /** TEAMS_LOGIN_URL: the login host; the token endpoint is `<loginUrl>/<authority>/oauth2/v2.0/token`. */
  loginUrl: string;
}

export const microsoftEndpoints: TeamsEndpoints = {
  openIdMetadataUrl: AuthenticationConstants.ToBotFromChannelOpenIdMetadataUrl,
  tokenIssuer: AuthenticationConstants.ToBotFromChannelTokenIssuer,
  loginUrl: AuthenticationConstants.ToChannelFromBotLoginUrlPrefix.replace(/\/$/, ""),
};

/** The bot→channel token scope. */
export const botFrameworkScope = `${AuthenticationConstants.ToChannelFromBotOAuthScope}/.default`;

/**
 * A SingleTenant app gets its tokens from its own tenant; a MultiTenant one from botframework.com, as botbuilder does.
 * Built with the URL API, the tenant one encoded path segment: whatever it holds cannot leave the login host's path.
 */
export function loginAuthority(credentials: TeamsCredentials, endpoints: TeamsEndpoints): string {
  const tenant = credentials.appType === "SingleTenant" ? (credentials.appTenantId ?? "") : "botframework.com";
  return new URL(encodeURIComponent(tenant), `${endpoints.loginUrl.replace(/\/$/, "")}/`).href;
}

/** The OAuth 2 token endpoint of the app's login authority. */
export function tokenEndpoint(credentials: TeamsCredentials, endpoints: TeamsEndpoints): URL {
  return new URL("oauth2/v2.0/token", `${loginAuthority(credentials, endpoints)}/`);
}
