import { PermanentSendError, SendRejectedError, type TokenRotation } from "@resident/core";
import { WebAPIPlatformError, type WebClient } from "@slack/web-api";
import type { SlackCredentials } from "./credentials.ts";

/** The app's OAuth credentials (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET), which a refresh is signed with. */
export interface SlackApp {
  clientId: string;
  clientSecret: string;
}

/**
 * Slack's token rotation: oauth.v2.access with grant_type=refresh_token spends the refresh token (Slack revokes it)
 * for a new bot token (`xoxe.xoxb-`, 12 hours) and a new refresh token. A refresh token used twice is answered
 * invalid_refresh_token, so the caller makes sure only one refresh per token ever runs (core's RotatingTokens).
 */
export function slackTokenRotation(client: WebClient, app: SlackApp | undefined): TokenRotation<SlackCredentials> {
  return {
    token: (credentials) => ({
      value: credentials.botToken,
      expiresAt: credentials.botTokenExpiresAt,
      refreshable: credentials.botRefreshToken !== undefined,
    }),
    async refresh(credentials) {
      if (!app) {
        throw new PermanentSendError(
          "the bot token rotates: set SLACK_CLIENT_ID and SLACK_CLIENT_SECRET to refresh it",
        );
      }
      let answer: Awaited<ReturnType<WebClient["oauth"]["v2"]["access"]>>;
      try {
        answer = await client.oauth.v2.access({
          client_id: app.clientId,
          client_secret: app.clientSecret,
          grant_type: "refresh_token",
          refresh_token: credentials.botRefreshToken,
        });
      } catch (error) {
        throw toRefreshError(error);
      }
      const { access_token: botToken, refresh_token: botRefreshToken, expires_in: expiresIn } = answer;
      if (!botToken || !botRefreshToken || !expiresIn) {
        // Slack may have spent the refresh token all the same; the next refresh will tell.
        throw new SendRejectedError("Slack answered the token refresh without a token, refresh token and expiry");
      }
      return { ...credentials, botToken, botRefreshToken, botTokenExpiresAt: Date.now() + expiresIn * 1000 };
    },
  };
}

/**
 * Slack's refusal (invalid_refresh_token: spent or revoked; bad_client_secret, invalid_client_id) holds however
 * often it is asked again: permanent, and the workspace's last error says so. Anything else asked nothing of
 * Slack that a later attempt cannot ask again, or Slack spent the token and the next attempt hears so.
 */
function toRefreshError(error: unknown): Error {
  if (error instanceof WebAPIPlatformError) {
    return new PermanentSendError(
      `Slack refused the bot token refresh: ${String(error.data.error)} (install the app into the workspace again)`,
    );
  }
  return new SendRejectedError(`could not refresh the bot token with Slack: ${(error as Error).message}`);
}
