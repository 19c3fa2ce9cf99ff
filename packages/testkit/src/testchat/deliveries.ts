import { randomUUID } from "node:crypto";
import type { InboundRequest } from "@resident/core";
import type { TestchatDelivery } from "./payload.ts";
import { signatureHeader, testchatSignature } from "./verify.ts";

let sequence = 0;

/** A delivery as Testchat sends it: the JSON body signed with the webhook's secret. */
export function signTestchatDelivery(delivery: TestchatDelivery, signingSecret: string): InboundRequest {
  const rawBody = Buffer.from(JSON.stringify(delivery));
  return {
    rawBody,
    headers: { "content-type": "application/json", [signatureHeader]: testchatSignature(rawBody, signingSecret) },
    query: {},
  };
}

/** A user's message in `room` that mentions the bot, under a fresh delivery id. */
export function mentionOf(botId: string, text: string, room = "R1"): TestchatDelivery {
  sequence++;
  return {
    delivery_id: randomUUID(),
    message: { room, id: `U${sequence}`, author: "alice", text: `<@${botId}> ${text}` },
  };
}

/** The same message through a second webhook: same message, a delivery id of its own. */
export function twinOf(delivery: TestchatDelivery): TestchatDelivery {
  return { ...delivery, delivery_id: randomUUID() };
}

/** A message the bot itself posted. */
export function ownMessageOf(botId: string, room = "R1"): TestchatDelivery {
  sequence++;
  return { delivery_id: randomUUID(), message: { room, id: `U${sequence}`, author: botId, text: `<@${botId}> hi` } };
}
