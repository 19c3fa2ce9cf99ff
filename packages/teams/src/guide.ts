import type { PlatformGuide } from "@resident/core";
import { teamsAppTypes } from "./credentials.ts";

/** The admin console's Teams page: README.md's "Registering a bot", and what each fail mode costs on Teams. */
export const teamsGuide: PlatformGuide = {
  displayName: "Microsoft Teams",
  credentialFields: [
    { name: "appId", label: "App ID", secret: false, help: "The Azure Bot's Microsoft App ID." },
    {
      name: "appPassword",
      label: "App password",
      secret: true,
      help: "A client secret of the bot's app registration (Certificates & secrets).",
    },
    {
      name: "appType",
      label: "App type",
      secret: false,
      optional: true,
      choices: teamsAppTypes,
      help: "MultiTenant when left empty.",
    },
    {
      name: "appTenantId",
      label: "App tenant ID",
      secret: false,
      optional: true,
      help: "The app's home tenant; required for a SingleTenant app.",
    },
  ],
  setupSteps: [
    "Create an Azure Bot (or an Entra app registration for a Teams app); note its app ID and create a client " +
      "secret (the app password). Note whether it is MultiTenant or SingleTenant, and for SingleTenant its tenant ID.",
    "Save them here: resident fetches a token with them from Microsoft before it keeps them, so wrong ones are " +
      "refused at once with Microsoft's own words.",
    "In the Azure Bot's Configuration, set the messaging endpoint to the webhook URL, and enable the Microsoft " +
      "Teams channel.",
    "Install the Teams app whose manifest names the app ID as bots[].botId, with the scopes personal, groupChat " +
      "and team.",
  ],
  outageBehaviour:
    "While Redis is down, messages are taken in and answered through PostgreSQL, which every instance shares: " +
    "nothing is lost and nothing is answered twice. While PostgreSQL is down, messages keep coming in through " +
    "Redis and are answered, once, as soon as it is back; only a workspace that no instance has seen since it " +
    "started is refused meanwhile (HTTP 503), and Teams delivers those messages again for a short while only. " +
    "The fail mode below matters only while both are down at once.",
  failModeConsequences: {
    closed:
      "If Redis and PostgreSQL are both down, messages are refused (HTTP 503) and Teams delivers them again for a short " +
      "while. A message whose retry arrives after a store is back is answered then, once; during a longer outage " +
      "messages go unanswered. Nothing is ever answered twice. Recommended for Teams (the default).",
    open:
      "If Redis and PostgreSQL are both down, the instance that receives a message answers it on its own. Nothing is lost " +
      "to the outage, but a Teams retry of one message may reach another instance and be answered twice, and an " +
      "answer still being written when its instance stops is lost.",
  },
};
