import type { PlatformGuide } from "@resident/core";

/** The admin console's Slack page: README.md's "Creating the Slack app", and what each fail mode costs on Slack. */
export const slackGuide: PlatformGuide = {
  displayName: "Slack",
  credentialFields: [
    {
      name: "signingSecret",
      label: "Signing secret",
      secret: true,
      help: "Basic Information → App Credentials → Signing Secret.",
    },
    {
      name: "botToken",
      label: "Bot token",
      secret: true,
      help: "OAuth & Permissions → Bot User OAuth Token, starting with xoxb-.",
    },
  ],
  setupSteps: [
    "At api.slack.com/apps, choose Create New App → From scratch, and pick your Slack workspace.",
    "OAuth & Permissions → Bot Token Scopes: add app_mentions:read, chat:write, im:history and channels:history " +
      "(and groups:history, mpim:history to answer in private channels and group DMs). Install the app to the " +
      "workspace and copy the Bot User OAuth Token (xoxb-…).",
    "Basic Information → App Credentials: copy the Signing Secret.",
    "Save both here: resident checks the token with Slack (auth.test) before it keeps them.",
    "Event Subscriptions: turn them on and paste the webhook URL as the Request URL (Slack checks it at once). " +
      "Under Subscribe to bot events add app_mention and message.im.",
    "App Home → Show Tabs: allow users to send messages from the Messages tab, for direct messages.",
  ],
  outageBehaviour:
    "While Redis is down, messages are taken in and answered through PostgreSQL, which every instance shares: " +
    "nothing is lost and nothing is answered twice. While PostgreSQL is down, messages keep coming in through " +
    "Redis and are answered, once, as soon as it is back; only a workspace that no instance has seen since it " +
    "started is refused meanwhile (HTTP 503), and Slack sends those messages again, three times over about six " +
    "minutes. The fail mode below matters only while both are down at once.",
  failModeConsequences: {
    closed:
      "If Redis and PostgreSQL are both down, messages are refused (HTTP 503) and Slack sends each one again, three times " +
      "over about six minutes. A message whose retry arrives after a store is back is answered then, once; one " +
      "whose retries all fall inside a longer outage is not answered. Nothing is ever answered twice. " +
      "Recommended for Slack (the default).",
    open:
      "If Redis and PostgreSQL are both down, the instance that receives a message answers it on its own. Nothing is lost " +
      "to the outage, but Slack's retries and the two events Slack sends for one message (app_mention and message) " +
      "may reach different instances and be answered twice, and an answer still being written when its instance " +
      "stops is lost.",
  },
};
