import { type InboundRequest, singleHeader, VerificationError } from "@resident/core";
import { type Activity, CallerIdConstants, ConfigurationBotFrameworkAuthentication } from "botbuilder";
import { AuthenticationConstants, AuthenticationError, type BotFrameworkAuthentication } from "botframework-connector";
import type { TeamsCredentials } from "./credentials.ts";
import { loginAuthority, type TeamsEndpoints } from "./endpoints.ts";
import { parseDelivery } from "./payload.ts";

/**
 * botbuilder's own validation of channel→bot requests for one bot registration: issuer, audience (the app id),
 * signature by a key from the OpenID metadata, lifetime, the `serviceurl` claim against the activity's serviceUrl,
 * and the key's endorsement of the activity's channel.
 */
export function channelAuthentication(
  credentials: TeamsCredentials,
  endpoints: TeamsEndpoints,
): BotFrameworkAuthentication {
  // Setting any one endpoint key makes botbuilder drop the defaults of all the others, so every one is given.
  return new ConfigurationBotFrameworkAuthentication({
    MicrosoftAppId: credentials.appId,
    MicrosoftAppPassword: credentials.appPassword,
    MicrosoftAppType: credentials.appType ?? "MultiTenant",
    MicrosoftAppTenantId: credentials.appTenantId,
    ToBotFromChannelOpenIdMetadataUrl: endpoints.openIdMetadataUrl,
    ToBotFromChannelTokenIssuer: endpoints.tokenIssuer,
    ToChannelFromBotLoginUrl: loginAuthority(credentials, endpoints),
    ToChannelFromBotOAuthScope: AuthenticationConstants.ToChannelFromBotOAuthScope,
    OAuthUrl: AuthenticationConstants.OAuthUrl,
    ToBotFromEmulatorOpenIdMetadataUrl: AuthenticationConstants.ToBotFromEmulatorOpenIdMetadataUrl,
    CallerId: CallerIdConstants.PublicAzureChannel,
    ValidateAuthority: true,
  });
}

/**
 * Rejects with VerificationError when the delivery has no token or botbuilder refuses it. When the signing keys
 * cannot be loaded the request is not known to be forged, so a plain error propagates (a 5xx the channel retries)
 * instead of a 401.
 */
export async function verifyDelivery(request: InboundRequest, auth: BotFrameworkAuthentication): Promise<void> {
  const authorization = singleHeader(request.headers, "authorization")?.trim();
  if (!authorization) throw new VerificationError("missing Authorization header");
  const activity = parseDelivery(request.rawBody);
  // botbuilder sends a channelId of "AseChannel" to a validator configured process-wide by whichever workspace
  // was set up last, so nothing but Teams' own channel may reach it.
  if (activity.channelId !== "msteams") throw new VerificationError(`not a Teams activity (${activity.channelId})`);
  try {
    // botbuilder reads the activity's channelId and serviceUrl; the parsed body is that activity.
    await auth.authenticateRequest(activity as unknown as Activity, authorization);
  } catch (error) {
    if (keysUnavailable(error)) throw new Error("could not load the Bot Framework signing keys", { cause: error });
    const token = authorization.replace(/^Bearer\s+/i, "");
    const reason = error instanceof Error ? error.message : String(error);
    throw new VerificationError(`Teams token rejected: ${token ? reason.replaceAll(token, "[token]") : reason}`);
  }
}

function keysUnavailable(error: unknown): boolean {
  if (error instanceof AuthenticationError) return error.statusCode >= 500;
  return error instanceof Error && error.name === "FetchError";
}
