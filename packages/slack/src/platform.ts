import { definePlatform } from "@resident/core";
import { SlackAdapter } from "./adapter.ts";
import { slackCredentialsSchema } from "./credentials.ts";
import { slackGuide } from "./guide.ts";
import { socketModeReceiver } from "./socket-mode.ts";
import { distributedAppLimits } from "./thread.ts";

/**
 * Slack as the service knows it. Reads SLACK_API_URL (default https://slack.com/api/) and
 * SLACK_THREAD_READS_PER_MINUTE (default 1, Slack's limit for apps distributed outside the Marketplace).
 */
export const slackPlatform = definePlatform({
  id: "slack",
  webhookPath: "/slack/events",
  credentialsSchema: slackCredentialsSchema,
  secrets: { fields: ["signingSecret", "botToken", "appToken"], headers: [] },
  // Slack retries a 503 (three times over ~6 minutes), so refusing while the store is down loses nothing.
  defaultFailMode: "closed",
  guide: slackGuide,
  createAdapter: ({ env, logger, limiter }) =>
    new SlackAdapter({ apiUrl: env.SLACK_API_URL || undefined, logger, limiter, threadReads: threadReads(env) }),
  createReceiver: ({ env, logger }) =>
    socketModeReceiver({ apiUrl: env.SLACK_API_URL || "https://slack.com/api/", logger }),
});

function threadReads(env: Readonly<Record<string, string | undefined>>) {
  const perMinute = Number(env.SLACK_THREAD_READS_PER_MINUTE);
  if (!Number.isInteger(perMinute) || perMinute <= distributedAppLimits.readsPerMinute) return distributedAppLimits;
  // Apps allowed more calls are allowed Slack's usual page too.
  return { readsPerMinute: perMinute, pageSize: 200 };
}
