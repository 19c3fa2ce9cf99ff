import { readFileSync } from "node:fs";
import {
  type ChatEvent,
  type InboundRequest,
  type OutboundReply,
  resolveSettings,
  type Workspace,
} from "@resident/core";
import { FakeBotFramework, type TeamsMessageOptions, teamsMessage } from "@resident/testkit/teams";
import { TeamsAdapter, type TeamsAdapterOptions, type TeamsCredentials, teamsPlatform } from "../src/index.ts";

export const appId = "00000000-1111-2222-3333-444444444444";
export const appPassword = "app-password~never-shown";

export interface TeamsHarness {
  bf: FakeBotFramework;
  adapter: TeamsAdapter;
  workspace: Workspace<TeamsCredentials>;
  /** A user's message to the bot (a channel @mention unless told otherwise). */
  message(text: string, options?: Partial<TeamsMessageOptions>): ReturnType<typeof teamsMessage>;
  /** That message as the fake connector delivers it, verified and normalized: the event the worker answers. */
  userEvent(text: string, options?: Partial<TeamsMessageOptions>): Promise<ChatEvent>;
}

/** The fake Bot Framework, an adapter pointed at it and a workspace connected through it. */
export async function startTeams(
  options: { keys?: Record<string, string[]>; adapter?: TeamsAdapterOptions } = {},
): Promise<TeamsHarness> {
  const bf = await FakeBotFramework.start({ keys: options.keys });
  bf.registerApp(appId, appPassword);
  const adapter = new TeamsAdapter({ ...endpointsOf(bf), timeoutMs: 1_000, ...options.adapter });
  const workspace = await teamsWorkspace(adapter, { appId, appPassword });
  const message: TeamsHarness["message"] = (text, overrides) =>
    teamsMessage({ appId, serviceUrl: bf.serviceUrl, text, ...overrides });
  return {
    bf,
    adapter,
    workspace,
    message,
    async userEvent(text, overrides) {
      const request = await bf.request(message(text, overrides));
      await adapter.verify(request, workspace, Date.now());
      const inbound = adapter.normalize(request, workspace, Date.now());
      if (inbound.kind !== "message") throw new Error(`expected a message, got ${inbound.kind}`);
      return inbound.event;
    },
  };
}

/** The reply the worker would send to an event. */
export function replyTo(event: ChatEvent, text = "the answer"): OutboundReply {
  return { event, text, replyKey: `reply:${event.workspaceId}:${event.messageKey}` };
}

export function endpointsOf(bf: FakeBotFramework): TeamsAdapterOptions {
  return { openIdMetadataUrl: bf.openIdMetadataUrl, tokenIssuer: bf.issuer, loginUrl: bf.loginUrl };
}

export async function teamsWorkspace(
  adapter: TeamsAdapter,
  credentials: TeamsCredentials,
  id = "ws-teams",
): Promise<Workspace<TeamsCredentials>> {
  return {
    id,
    tenantId: "tenant-a",
    platform: "teams",
    name: "Teams",
    credentials,
    settings: resolveSettings({}, teamsPlatform.defaultFailMode),
    identity: await adapter.connect(credentials),
  };
}

/** A delivery of a fixture file as it came (no token: normalize does not look at one). */
export function fixture(name: string, edit: (activity: Record<string, unknown>) => void = () => {}): InboundRequest {
  const activity = JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"));
  edit(activity);
  return { rawBody: Buffer.from(JSON.stringify(activity)), headers: {}, query: {} };
}

export function unsignedRequest(activity: object): InboundRequest {
  return { rawBody: Buffer.from(JSON.stringify(activity)), headers: {}, query: {} };
}
