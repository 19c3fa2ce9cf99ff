import { readFileSync } from "node:fs";
import { type BotIdentity, type InboundRequest, resolveSettings, type Workspace } from "@resident/core";
import type { SlackCredentials } from "../src/index.ts";

export const signingSecret = "8f742231b10e8888abcd99yyyzzz85a5";

export function slackWorkspace(
  identity: BotIdentity,
  credentials: SlackCredentials = { signingSecret, botToken: "xoxb-0-not-a-real-token" },
): Workspace<SlackCredentials> {
  return {
    id: "ws_slack",
    tenantId: "tenant_1",
    platform: "slack",
    name: "Slack test workspace",
    credentials,
    settings: resolveSettings({}, "closed"),
    identity,
  };
}

export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8"));
}

export function fixtureBytes(name: string): Buffer {
  return readFileSync(new URL(`fixtures/${name}`, import.meta.url));
}

/** A delivery as the receiver hands it over; normalize runs after verify, so no signature is needed here. */
export function delivery(body: unknown, headers: Record<string, string> = {}): InboundRequest {
  return {
    rawBody: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
    headers: { "content-type": "application/json", ...headers },
    query: {},
  };
}
