import type { PlatformGuide } from "@resident/core";
import { chatworkFailModeConsequences, chatworkOutageBehaviour } from "./fail-mode.ts";

/** The admin console's Chatwork page: README.md's "Setting up a workspace". */
export const chatworkGuide: PlatformGuide = {
  displayName: "Chatwork",
  credentialFields: [
    {
      name: "apiToken",
      label: "API token",
      secret: true,
      help: "Of the bot's own Chatwork account: Service integration → API token.",
    },
    {
      name: "webhookTokens",
      label: "Webhook tokens",
      secret: true,
      list: true,
      help: "The token of every webhook pointing at the webhook URL: the account webhook and each room webhook.",
    },
  ],
  setupSteps: [
    "Chatwork has no bot users: keep an ordinary Chatwork account for the bot, and with it create an API token " +
      "(Service integration → API token).",
    "In the API management screen, create an account webhook (account events: mentions to me) with the webhook URL.",
    "For each of the bot's direct chats, create a room webhook (room events: message created) with the same URL, " +
      "so the bot hears messages there without a mention. Chatwork allows five webhooks per account.",
    "Save the API token and the token of every webhook here. A delivery signed by a token not listed is refused.",
    "When you open a new direct chat with a room webhook of its own, add its token here and save again.",
  ],
  outageBehaviour: chatworkOutageBehaviour,
  failModeConsequences: chatworkFailModeConsequences,
};
