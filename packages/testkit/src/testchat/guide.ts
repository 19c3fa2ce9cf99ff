import type { PlatformGuide } from "@resident/core";

/** The console's page for Testchat, the chat platform that exists only in tests. */
export const testchatGuide: PlatformGuide = {
  displayName: "Testchat",
  credentialFields: [
    { name: "apiToken", label: "API token", secret: true, help: "The bot's token, from the fake's addBot()." },
    { name: "signingSecret", label: "Signing secret", secret: true, help: "The secret the webhook is signed with." },
  ],
  setupSteps: [
    "Add a bot to the fake Testchat.",
    "Save its token and the signing secret here.",
    "Deliver to the webhook URL.",
  ],
  outageBehaviour:
    "While Redis is down, deliveries are taken in and answered through PostgreSQL; while PostgreSQL is down, through " +
    "Redis, except for a workspace no instance has seen since it started (HTTP 503).",
  failModeConsequences: {
    closed:
      "If Redis and PostgreSQL are both down, deliveries are refused (HTTP 503); Testchat never retries, so they are lost.",
    open:
      "If Redis and PostgreSQL are both down, the instance that receives a delivery answers it on its own; a twin reaching " +
      "another instance may be answered twice.",
  },
};
