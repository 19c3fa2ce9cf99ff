import { randomBytes, randomUUID } from "node:crypto";
import type { AdminApi } from "@resident/admin-api";
import type { InboundRequest } from "@resident/core";
import {
  type FakeChatworkAccount,
  type FakeChatworkRoom,
  mentionToMe,
  messageCreated,
  type SignedChatworkWebhook,
  signChatworkWebhook,
} from "../chatwork/index.ts";
import { type Delivered, deliver } from "../deliver.ts";
import {
  connectSlackWorkspace,
  type FakeSlack,
  type SignedSlackRequest,
  type SlackSigningOptions,
  type SlackWorkspace,
  signSlackRequest,
} from "../slack/index.ts";
import {
  type ChannelJwtOptions,
  delivery,
  type FakeBotFramework,
  nextTeamsMessageId,
  type TeamsActivity,
  type TeamsMessageOptions,
  teamsMessage,
} from "../teams/index.ts";

/*
 * Workspaces connected the way a tenant admin connects them: a tenant and its admin token made by the operator, then
 * the workspace created with the tenant's token through the admin API (through nginx, so any instance may take it),
 * its credentials known to the fake platform. Each comes with builders of deliveries signed as the platform signs
 * them, and `send`, which posts one to the deployment (nginx) or to any base URL given (one instance directly).
 */

type Settings = Record<string, unknown>;

interface Connected {
  tenantId: string;
  tenantAdmin: AdminApi;
  workspaceId: string;
  /** `/slack/events/<id>`, `/teams/messages/<id>`, `/chatwork/webhook/<id>`. */
  webhookPath: string;
  /** The webhook through the deployment's front door (nginx). */
  webhookUrl: string;
  /** Changes the workspace's settings through the admin API (e.g. `{ failMode: "open" }`). */
  updateSettings(settings: Settings): Promise<void>;
}

function connected(
  baseUrl: string,
  tenantId: string,
  tenantAdmin: AdminApi,
  workspace: { id: string; webhookPath: string },
): Connected {
  return {
    tenantId,
    tenantAdmin,
    workspaceId: workspace.id,
    webhookPath: workspace.webhookPath,
    webhookUrl: `${baseUrl}${workspace.webhookPath}`,
    async updateSettings(settings) {
      await tenantAdmin.expect(200, "PATCH", `/tenants/${tenantId}/workspaces/${workspace.id}`, { settings });
    },
  };
}

const tag = () => randomBytes(3).toString("hex");

// ─── Slack ──────────────────────────────────────────────────────────────────────────────────────────────────────

export interface DeployedSlackWorkspace extends SlackWorkspace, Connected {
  /** The delivery Slack would make of `body` (signed now). */
  request(body: unknown, options?: Omit<SlackSigningOptions, "signingSecret" | "body">): SignedSlackRequest;
  /** Signs `body` and POSTs it to this workspace's webhook at `baseUrl` (default: through nginx). */
  send(
    body: unknown,
    options?: Omit<SlackSigningOptions, "signingSecret" | "body">,
    baseUrl?: string,
  ): Promise<Delivered>;
}

export async function connectSlack(
  baseUrl: string,
  operator: AdminApi,
  slack: FakeSlack,
  settings: Settings = {},
): Promise<DeployedSlackWorkspace> {
  const ws = await connectSlackWorkspace(baseUrl, operator, slack, settings);
  const webhookPath = new URL(ws.webhookUrl).pathname;
  const request = (body: unknown, options: Omit<SlackSigningOptions, "signingSecret" | "body"> = {}) =>
    signSlackRequest({ signingSecret: ws.signingSecret, body, ...options });
  return {
    ...ws,
    ...connected(baseUrl, ws.tenantId, ws.tenantAdmin, { id: ws.workspaceId, webhookPath }),
    request,
    send: (body, options, via = baseUrl) => deliver(`${via}${webhookPath}`, request(body, options)),
  };
}

// ─── Teams ──────────────────────────────────────────────────────────────────────────────────────────────────────

export interface DeployedTeamsWorkspace extends Connected {
  appId: string;
  appPassword: string;
  /** A user's message to the bot (a channel post @mentioning it unless told otherwise). */
  message(text: string, options?: Partial<TeamsMessageOptions>): TeamsActivity;
  /**
   * Teams' retry of an activity the bot did not answer in time, as it sometimes makes one: the same sender, place
   * and text under a new activity id and a new timestamp (a new channel post gets a new thread id with it).
   */
  retryOf(activity: TeamsActivity): TeamsActivity;
  /** The delivery of `activity` under a valid channel JWT (or one shaped by `jwt`: expired, wrong audience, …). */
  request(activity: TeamsActivity, jwt?: Partial<ChannelJwtOptions>): Promise<InboundRequest>;
  /** POSTs an activity (signed now) or a ready delivery to this workspace's endpoint at `baseUrl` (default nginx). */
  send(what: TeamsActivity | InboundRequest, baseUrl?: string): Promise<Delivered>;
}

export async function connectTeams(
  baseUrl: string,
  operator: AdminApi,
  bf: FakeBotFramework,
  settings: Settings = {},
): Promise<DeployedTeamsWorkspace> {
  const tenant = await operator.tenantWithAdmin(`teams tenant ${tag()}`);
  const appId = randomUUID();
  const appPassword = `pw~${randomBytes(16).toString("base64url")}`;
  bf.registerApp(appId, appPassword);
  const workspace = await tenant.admin.createWorkspace(tenant.tenantId, {
    platform: "teams",
    name: "Teams support",
    credentials: { appId, appPassword },
    settings,
  });
  const base = connected(baseUrl, tenant.tenantId, tenant.admin, workspace);
  // The channel signs one token per bot and serviceUrl, valid for an hour: reuse it, as Teams does.
  let token: Promise<string> | undefined;
  const request = async (activity: TeamsActivity, jwt?: Partial<ChannelJwtOptions>) => {
    if (jwt) return bf.request(activity, jwt);
    token ??= bf.signChannelJwt({ appId, serviceUrl: bf.serviceUrl });
    return delivery(activity, await token);
  };
  const message = (text: string, options: Partial<TeamsMessageOptions> = {}) =>
    teamsMessage({ appId, serviceUrl: bf.serviceUrl, text, ...options });
  return {
    ...base,
    appId,
    appPassword,
    message,
    retryOf(activity) {
      const [conversationId = "", threadRoot] = activity.conversation.id.split(";messageid=");
      const mentioned = activity.text?.startsWith("<at>") ?? false;
      const text = (activity.text ?? "").replace(/^<at>[^<]*<\/at>\s*/, "");
      const id = nextTeamsMessageId();
      return message(text, {
        id,
        conversationType: activity.conversation.conversationType,
        conversationId,
        // A root post retried is a new root post; a reply in a thread stays in its thread.
        ...(threadRoot && threadRoot !== activity.id ? { threadRootId: threadRoot } : {}),
        from: activity.from,
        tenantId: activity.conversation.tenantId,
        mention: mentioned,
      });
    },
    request,
    async send(what, via = baseUrl) {
      const inbound = "rawBody" in what ? (what as InboundRequest) : await request(what as TeamsActivity);
      return deliver(`${via}${base.webhookPath}`, inbound);
    },
  };
}

// ─── Chatwork ───────────────────────────────────────────────────────────────────────────────────────────────────

/** One user message and its two deliveries: the account webhook's mention_to_me and the room webhook's twin. */
export interface ChatworkMessage {
  roomId: number;
  messageId: string;
  /** What the user wrote, with the bot's [To:] tag. */
  body: string;
  /** What the agent is asked (the body without the tag). */
  text: string;
  mention: SignedChatworkWebhook;
  created: SignedChatworkWebhook;
  /** The tag the answer opens with: `[rp aid=<user> to=<room>-<message>]`. */
  replyTag: string;
}

export interface DeployedChatworkWorkspace extends Connected {
  bot: FakeChatworkAccount;
  user: FakeChatworkAccount;
  /** The bot's group rooms, each with a room webhook. */
  rooms: number[];
  accountWebhookToken: string;
  roomWebhookToken: string;
  /** A user's message addressing the bot in `roomId` (default the first room). */
  message(text: string, options?: { roomId?: number; messageId?: string }): ChatworkMessage;
  send(request: InboundRequest, baseUrl?: string): Promise<Delivered>;
}

/**
 * The fake Chatwork's accounts and rooms: the very arrays the fake was constructed with (it keeps them, not copies),
 * so a workspace connected while it runs adds its bot, user and rooms by pushing to them.
 */
export interface ChatworkDirectory {
  accounts: FakeChatworkAccount[];
  rooms: FakeChatworkRoom[];
}

let nextAccountId = 4_100_000 + Math.floor(Math.random() * 100_000);
let nextRoomId = 210_000_000 + Math.floor(Math.random() * 1_000_000);

export async function connectChatwork(
  baseUrl: string,
  operator: AdminApi,
  directory: ChatworkDirectory,
  options: { rooms?: number; settings?: Settings } = {},
): Promise<DeployedChatworkWorkspace> {
  const bot: FakeChatworkAccount = {
    apiToken: `cw-${randomBytes(16).toString("hex")}`,
    accountId: nextAccountId++,
    name: `resident_${tag()}`,
  };
  const user: FakeChatworkAccount = {
    apiToken: `cw-${randomBytes(16).toString("hex")}`,
    accountId: nextAccountId++,
    name: "Hanako",
  };
  const rooms = Array.from({ length: options.rooms ?? 1 }, () => nextRoomId++);
  directory.accounts.push(bot, user);
  directory.rooms.push(...rooms.map((roomId) => ({ roomId, type: "group" as const, name: `room ${roomId}` })));
  const accountWebhookToken = randomBytes(32).toString("base64");
  const roomWebhookToken = randomBytes(32).toString("base64");
  const accountSetting = String(1000 + Math.floor(Math.random() * 9000));
  const roomSetting = String(10_000 + Math.floor(Math.random() * 90_000));

  const tenant = await operator.tenantWithAdmin(`chatwork tenant ${tag()}`);
  const workspace = await tenant.admin.createWorkspace(tenant.tenantId, {
    platform: "chatwork",
    name: "Chatwork support",
    credentials: { apiToken: bot.apiToken, webhookTokens: [accountWebhookToken, roomWebhookToken] },
    settings: options.settings ?? {},
  });
  const base = connected(baseUrl, tenant.tenantId, tenant.admin, workspace);
  return {
    ...base,
    bot,
    user,
    rooms,
    accountWebhookToken,
    roomWebhookToken,
    message(text, { roomId = rooms[0] as number, messageId } = {}) {
      const body = `[To:${bot.accountId}]${bot.name}さん\n${text}`;
      const mention = mentionToMe({
        webhookSettingId: accountSetting,
        fromAccountId: user.accountId,
        toAccountId: bot.accountId,
        roomId,
        body,
        ...(messageId ? { messageId } : {}),
      });
      const id = String(mention.webhook_event.message_id);
      const created = messageCreated({
        webhookSettingId: roomSetting,
        accountId: user.accountId,
        roomId,
        messageId: id,
        body,
        time: mention.webhook_event_time,
      });
      return {
        roomId,
        messageId: id,
        body,
        text,
        mention: signChatworkWebhook({ webhookToken: accountWebhookToken, body: mention }),
        created: signChatworkWebhook({ webhookToken: roomWebhookToken, body: created }),
        replyTag: `[rp aid=${user.accountId} to=${roomId}-${id}]`,
      };
    },
    send: (request, via = baseUrl) => deliver(`${via}${base.webhookPath}`, request),
  };
}
