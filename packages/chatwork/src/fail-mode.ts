import type { FailMode } from "@resident/core";

/*
 * Chatwork never redelivers a webhook. "closed" answers a delivery that meets an outage of both stores with 503 and waits for a
 * retry that never comes: the message is lost, silently. "open" answers it without the shared store, where the only
 * risk is a twin (mention_to_me + message_created of one message) reaching two instances during the outage and being
 * answered twice. A rare duplicate beats a certain loss, so Chatwork workspaces fail open unless the admin decides
 * otherwise.
 */
export const chatworkDefaultFailMode: FailMode = "open";

/** What a store outage means for a Chatwork workspace; shown in the admin console. */
export const chatworkOutageBehaviour =
  "While Redis is down, messages are taken in and answered through PostgreSQL, which every instance shares: " +
  "nothing is lost and nothing is answered twice. While PostgreSQL is down, messages keep coming in through Redis " +
  "and are answered, once, as soon as it is back; only a workspace that no instance has seen since it started is " +
  "refused meanwhile (HTTP 503) — and as Chatwork sends each webhook only once, those messages are lost. The fail mode " +
  "below matters only while both are down at once.";

/** What each fail mode means for a Chatwork workspace while Redis and PostgreSQL are both down. */
export const chatworkFailModeConsequences: Record<FailMode, string> = {
  open:
    "If Redis and PostgreSQL are both down, the instance that receives a message answers it on its own. Nothing is lost to " +
    "the outage, but a message that arrives through both an account webhook and a room webhook may reach two " +
    "instances and be answered twice, and an answer still being written when its instance stops is lost. " +
    "Recommended for Chatwork (the default).",
  closed:
    "If Redis and PostgreSQL are both down, messages are refused (HTTP 503). Chatwork never resends a webhook, so every " +
    "message sent to the bot during the outage is lost: it is never answered, and nobody is told. Nothing is ever " +
    "answered twice.",
};
