import { definePlatform } from "@resident/core";
import { SlackAdapter } from "./adapter.ts";
import { slackCredentialsSchema } from "./credentials.ts";
import { slackDistribution } from "./distribution.ts";
import { slackGuide } from "./guide.ts";
import { socketModeReceiver } from "./socket-mode.ts";
import { distributedAppLimits } from "./thread.ts";

/**
 * Slack as the service knows it. Reads SLACK_API_URL (default https://slack.com/api/),
 * SLACK_THREAD_READS_PER_MINUTE (default 1, Slack's limit for apps distributed outside the Marketplace),
 * SLACK_CLIENT_ID and SLACK_CLIENT_SECRET (the app's, which refresh rotating bot tokens) and
 * SLACK_TOKEN_REFRESH_MARGIN_SECONDS (default 300: how long before its expiry a bot token is refreshed); and, for
 * the operator's own app installed with "Add to Slack", SLACK_CLIENT_ID and SLACK_CLIENT_SECRET with
 * SLACK_SIGNING_SECRET, SLACK_OAUTH_URL (default https://slack.com/oauth/v2/authorize) and SLACK_APP_TOKEN (its
 * events over Socket Mode).
 */
export const slackPlatform = definePlatform({
  id: "slack",
  webhookPath: "/slack/events",
  interactionPath: "/slack/interactivity",
  credentialsSchema: slackCredentialsSchema,
  secrets: { fields: ["signingSecret", "botToken", "appToken", "botRefreshToken"], headers: [] },
  // Slack retries a 503 (three times over ~6 minutes), so refusing while the store is down loses nothing.
  defaultFailMode: "closed",
  guide: slackGuide,
  createAdapter: ({ env, logger, limiter, credentials }) =>
    new SlackAdapter({
      apiUrl: env.SLACK_API_URL || undefined,
      logger,
      limiter,
      threadReads: threadReads(env),
      credentials,
      app: slackApp(env),
      refreshMarginMs: refreshMarginMs(env),
    }),
  createReceiver: ({ env, logger }) =>
    socketModeReceiver({ apiUrl: env.SLACK_API_URL || "https://slack.com/api/", logger }),
  createDistribution: slackDistribution,
});

function threadReads(env: Readonly<Record<string, string | undefined>>) {
  const perMinute = Number(env.SLACK_THREAD_READS_PER_MINUTE);
  if (!Number.isInteger(perMinute) || perMinute <= distributedAppLimits.readsPerMinute) return distributedAppLimits;
  // Apps allowed more calls are allowed Slack's usual page too.
  return { readsPerMinute: perMinute, pageSize: 200 };
}

function slackApp(env: Readonly<Record<string, string | undefined>>) {
  const { SLACK_CLIENT_ID: clientId, SLACK_CLIENT_SECRET: clientSecret } = env;
  return clientId && clientSecret ? { clientId, clientSecret } : undefined;
}

function refreshMarginMs(env: Readonly<Record<string, string | undefined>>) {
  const seconds = Number(env.SLACK_TOKEN_REFRESH_MARGIN_SECONDS);
  return env.SLACK_TOKEN_REFRESH_MARGIN_SECONDS && Number.isFinite(seconds) && seconds >= 0
    ? seconds * 1000
    : undefined;
}
