import { definePlatform } from "@resident/core";
import { SlackAdapter } from "./adapter.ts";
import { slackCredentialsSchema } from "./credentials.ts";
import { slackGuide } from "./guide.ts";
import { socketModeReceiver } from "./socket-mode.ts";

/** Slack as the service knows it. Reads SLACK_API_URL (default https://slack.com/api/). */
export const slackPlatform = definePlatform({
  id: "slack",
  webhookPath: "/slack/events",
  credentialsSchema: slackCredentialsSchema,
  secrets: { fields: ["signingSecret", "botToken", "appToken"], headers: [] },
  // Slack retries a 503 (three times over ~6 minutes), so refusing while the store is down loses nothing.
  defaultFailMode: "closed",
  guide: slackGuide,
  createAdapter: ({ env, logger }) => new SlackAdapter({ apiUrl: env.SLACK_API_URL || undefined, logger }),
  createReceiver: ({ env, logger }) =>
    socketModeReceiver({ apiUrl: env.SLACK_API_URL || "https://slack.com/api/", logger }),
});
