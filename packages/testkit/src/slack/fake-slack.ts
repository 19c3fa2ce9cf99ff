import { randomUUID } from "node:crypto";
import { type FakeResponse, FakeServer, type RecordedCall } from "../fake-server.ts";
import type { SlackBotIds } from "./bot.ts";
import { FakeOAuth } from "./fake-oauth.ts";
import { FakeSocketMode, type FakeSocketModeOptions } from "./fake-socket-mode.ts";
import { FakeTokenRotation, type FakeTokenRotationOptions, type FakeTokenSet } from "./fake-token-rotation.ts";
import { nextTs, slackId } from "./ids.ts";

/** A bot installed in a fake Slack team; its token is what a workspace's `botToken` is set to. */
export interface FakeSlackBot extends SlackBotIds {
  token: string;
  teamName: string;
  userName: string;
}

/** A message a person wrote, which conversations.replies lists beside the bot's posts. */
export interface FakeSlackHumanMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  user: string;
  team: string;
}

/** A message our bot posted, as the fake stored it (Slack's message fields plus the channel). */
export interface FakeSlackPost {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
  user: string;
  bot_id: string;
  app_id: string;
  team: string;
  /** Set on a message opened by chat.startStream: whether Slack still takes appends to it. */
  streaming?: boolean;
  /** How often chat.update replaced its text. */
  updates?: number;
  /** Its Block Kit blocks (chat.postMessage's and chat.update's, and those chat.stopStream appended). */
  blocks?: FakeSlackBlock[];
}

/** A Block Kit block as the fake keeps it: its type, the rest as given. */
export type FakeSlackBlock = { type: string } & Record<string, unknown>;

export type FakeSlackMethod =
  | "chat.postMessage"
  | "auth.test"
  | "conversations.replies"
  | "chat.startStream"
  | "chat.appendStream"
  | "chat.stopStream"
  | "chat.update"
  | "assistant.threads.setStatus"
  | "assistant.threads.setSuggestedPrompts"
  | "assistant.threads.setTitle"
  | "apps.connections.open"
  | "oauth.v2.access";

/** An assistant thread as the fake keeps it: its status (empty: none), title and suggested prompts. */
export interface FakeAssistantThread {
  status: string;
  title?: string;
  prompts?: { title: string; message: string }[];
}

/** markdown_text's limit in the streaming methods and chat.update. */
const markdownLimit = 12_000;

export interface FakeSlackFaultOptions {
  /** Default chat.postMessage. */
  method?: FakeSlackMethod;
  /** How many calls the fault applies to; default 1. */
  times?: number;
}

type Params = Record<string, unknown>;

/**
 * The slice of Slack's Web API the adapter uses, as a real HTTP server: chat.postMessage, auth.test,
 * conversations.replies, the streamed messages (chat.startStream / appendStream / stopStream, with Slack's
 * `message_not_in_streaming_state` once a stream is stopped or `expireStreams` ran) and chat.update under /api/. It takes what @slack/web-api sends (form or JSON bodies, the token in the
 * Authorization header or the body) and records every post, so tests count replies per thread. A service under
 * test may run in another process; it only needs `apiUrl`.
 */
export class FakeSlack {
  readonly server: FakeServer;
  /** Socket Mode: app-level tokens, the WebSocket connections, the envelopes. */
  readonly socketMode: FakeSocketMode;
  /** Token rotation: the app's client id and secret, rotating bot tokens, oauth.v2.access refreshes. */
  readonly rotation: FakeTokenRotation;
  /** OAuth v2 for a distributed app: the authorize page, its redirect, oauth.v2.access. */
  readonly oauth: FakeOAuth;
  private readonly bots = new Map<string, FakeSlackBot>();
  private readonly stored: FakeSlackPost[] = [];
  private readonly threads = new Map<string, FakeAssistantThread>();
  private readonly written: FakeSlackHumanMessage[] = [];

  constructor(options: { socketMode?: FakeSocketModeOptions; rotation?: FakeTokenRotationOptions } = {}) {
    this.socketMode = new FakeSocketMode(options.socketMode);
    this.rotation = new FakeTokenRotation(options.rotation);
    this.oauth = new FakeOAuth(this.rotation, {
      addBot: (bot) => this.addBot(bot),
      addRotatingBot: (lifetimeMs, bot) => this.addRotatingBot(lifetimeMs, bot),
    });
    this.server = new FakeServer({
      "POST /api/auth.test": (call) => this.authorized(call, (bot) => this.authTest(bot)),
      "POST /api/chat.postMessage": (call) => this.authorized(call, (bot, params) => this.postMessage(bot, params)),
      "POST /api/conversations.replies": (call) => this.authorized(call, (bot, params) => this.replies(bot, params)),
      "POST /api/chat.startStream": (call) => this.authorized(call, (bot, params) => this.startStream(bot, params)),
      "POST /api/chat.appendStream": (call) => this.authorized(call, (bot, params) => this.appendStream(bot, params)),
      "POST /api/chat.stopStream": (call) => this.authorized(call, (bot, params) => this.stopStream(bot, params)),
      "POST /api/chat.update": (call) => this.authorized(call, (bot, params) => this.update(bot, params)),
      "POST /api/assistant.threads.setStatus": (call) => this.authorized(call, (_, params) => this.setStatus(params)),
      "POST /api/assistant.threads.setSuggestedPrompts": (call) =>
        this.authorized(call, (_, params) => this.setSuggestedPrompts(params)),
      "POST /api/assistant.threads.setTitle": (call) => this.authorized(call, (_, params) => this.setTitle(params)),
      "POST /api/apps.connections.open": (call) => this.socketMode.connectionsOpen(call),
      "GET /oauth/v2/authorize": (call) => this.oauth.authorizePage(call),
      "GET /oauth/v2/authorize/approve": (call) => this.oauth.approve(call),
      // One method for both grants: a refresh of a rotating token, or an install's code.
      "POST /api/oauth.v2.access": (call) =>
        paramsOf(call).grant_type === "refresh_token" ? this.rotation.access(call) : this.oauth.access(call),
    });
  }

  async start(port = 0): Promise<this> {
    await Promise.all([this.server.start(port), this.socketMode.start()]);
    return this;
  }

  async close(): Promise<void> {
    await Promise.all([this.server.close(), this.socketMode.close()]);
  }

  /** http://127.0.0.1:<port> */
  get url(): string {
    return this.server.url;
  }

  /** What SLACK_OAUTH_URL is set to: the authorize page. */
  get oauthUrl(): string {
    return `${this.server.url}/oauth/v2/authorize`;
  }

  /** What SLACK_API_URL (or SlackAdapterOptions.apiUrl) is set to. */
  get apiUrl(): string {
    return `${this.server.url}/api/`;
  }

  /** Installs a bot in a new fake team (or with the ids given) and returns it with its token. */
  addBot(overrides: Partial<FakeSlackBot> = {}): FakeSlackBot {
    const n = this.bots.size + 1;
    const bot: FakeSlackBot = {
      token: `xoxb-${n}-fake-${randomUUID().replaceAll("-", "")}`,
      teamId: slackId("T"),
      teamName: `Fake Team ${n}`,
      appId: slackId("A"),
      userId: slackId("U"),
      userName: "resident",
      botId: slackId("B"),
      ...overrides,
    };
    this.bots.set(bot.token, bot);
    return bot;
  }

  /**
   * Installs a bot with token rotation on: its token set (a token expiring in `lifetimeMs`, default 12 hours, and
   * the refresh token that renews it) is what a workspace's botToken, botRefreshToken and botTokenExpiresAt are set to.
   */
  addRotatingBot(lifetimeMs?: number, overrides: Partial<FakeSlackBot> = {}): FakeSlackBot & FakeTokenSet {
    const bot = this.addBot(overrides);
    this.bots.delete(bot.token);
    const tokens = this.rotation.issue(bot, lifetimeMs);
    return { ...bot, token: tokens.botToken, ...tokens };
  }

  /** A message a person wrote in the bot's team (not through the API): threads list it. Returns its ts. */
  addMessage(bot: FakeSlackBot, message: { channel: string; text: string; user?: string; threadTs?: string }): string {
    const ts = nextTs();
    this.written.push({
      channel: message.channel,
      ts,
      ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
      text: message.text,
      user: message.user ?? slackId("U"),
      team: bot.teamId,
    });
    return ts;
  }

  /** Every message posted successfully, in order. */
  posts(): FakeSlackPost[] {
    return this.stored.map((post) => ({ ...post }));
  }

  /** An assistant thread's status, title and prompts as the bot last set them; undefined if it set none. */
  assistantThread(channel: string, threadTs: string): FakeAssistantThread | undefined {
    const thread = this.threads.get(`${channel}:${threadTs}`);
    return thread && { ...thread };
  }

  /** Ends every open stream, as Slack does some minutes after it was started: later appends are refused. */
  expireStreams(): this {
    for (const post of this.stored) if (post.streaming) post.streaming = false;
    return this;
  }

  /** The posts into one thread (`threadTs` is the parent's ts). */
  postsInThread(channel: string, threadTs: string): FakeSlackPost[] {
    return this.posts().filter((post) => post.channel === channel && post.thread_ts === threadTs);
  }

  /** Posts per thread, keyed `channel:thread_ts` (the same shape as the adapter's message key). */
  countsByThread(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const post of this.stored) {
      const key = `${post.channel}:${post.thread_ts ?? post.ts}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  /** Recorded calls of one method, answered or not. */
  callsTo(method: FakeSlackMethod): RecordedCall[] {
    return this.server.callsTo(`POST /api/${method}`);
  }

  /** Answers with this HTTP status without doing the work. */
  fail(status = 500, options?: FakeSlackFaultOptions): this {
    return this.fault(options, { respond: { status } });
  }

  /** Answers HTTP 429 with Retry-After, without doing the work. */
  rateLimit(retryAfterSeconds: number, options?: FakeSlackFaultOptions): this {
    const headers = { "retry-after": String(retryAfterSeconds) };
    return this.fault(options, { respond: { status: 429, headers, body: { ok: false, error: "ratelimited" } } });
  }

  /** Answers `{ok: false, error: code}` (HTTP 200, as Slack does) without doing the work. */
  error(code: string, options?: FakeSlackFaultOptions): this {
    return this.fault(options, { respond: { status: 200, body: { ok: false, error: code } } });
  }

  /** Waits `ms` before doing the work and answering: a slow Slack. */
  stall(ms: number, options?: FakeSlackFaultOptions): this {
    return this.fault(options, { stallMs: ms });
  }

  /** Does the work at once, then holds the answer for `ms`: a post that lands while its caller times out. */
  acceptThenTimeOut(ms: number, options?: FakeSlackFaultOptions): this {
    return this.fault(options, { delayAnswerMs: ms });
  }

  clearFaults(): this {
    this.server.clearFaults();
    return this;
  }

  private fault(options: FakeSlackFaultOptions = {}, fault: Parameters<FakeServer["fault"]>[1]): this {
    this.server.fault(`POST /api/${options.method ?? "chat.postMessage"}`, fault, options.times ?? 1);
    return this;
  }

  private authorized(call: RecordedCall, handle: (bot: FakeSlackBot, params: Params) => FakeResponse): FakeResponse {
    const params = paramsOf(call);
    const bearer = /^Bearer (.+)$/.exec(call.headers.authorization ?? "")?.[1];
    const token = bearer ?? (typeof params.token === "string" ? params.token : undefined);
    if (!token) return slackError("not_authed");
    const bot = this.bots.get(token) ?? this.rotation.bot(token);
    if (bot === "token_expired") return slackError(bot);
    if (!bot) return slackError("invalid_auth");
    return handle(bot, params);
  }

  private authTest(bot: FakeSlackBot): FakeResponse {
    // Shaped like Slack's answer for a bot token, which names no app_id.
    return ok({
      url: `https://${bot.teamId.toLowerCase()}.slack.test/`,
      team: bot.teamName,
      user: bot.userName,
      team_id: bot.teamId,
      user_id: bot.userId,
      bot_id: bot.botId,
      is_enterprise_install: bot.enterpriseInstall ?? false,
      ...(bot.enterpriseId ? { enterprise_id: bot.enterpriseId } : {}),
    });
  }

  private postMessage(bot: FakeSlackBot, params: Params): FakeResponse {
    const channel = stringParam(params.channel);
    const text = stringParam(params.text);
    if (!channel) return slackError("channel_not_found");
    if (!text) return slackError("no_text");
    const extras = messageExtras(params);
    if (typeof extras === "string") return slackError(extras);
    const { metadata, blocks } = extras;
    const threadTs = stringParam(params.thread_ts);
    const post: FakeSlackPost = {
      channel,
      ts: nextTs(),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      text,
      ...(metadata ? { metadata } : {}),
      ...(blocks ? { blocks } : {}),
      user: bot.userId,
      bot_id: bot.botId,
      app_id: bot.appId,
      team: bot.teamId,
    };
    this.stored.push(post);
    this.replied(channel, threadTs);
    const { channel: _channel, ...message } = post;
    return ok({ channel, ts: post.ts, message: { type: "message", ...message } });
  }

  private startStream(bot: FakeSlackBot, params: Params): FakeResponse {
    const channel = stringParam(params.channel);
    const threadTs = stringParam(params.thread_ts);
    const text = typeof params.markdown_text === "string" ? params.markdown_text : undefined;
    if (!channel) return slackError("channel_not_found");
    if (!threadTs || text === undefined) return slackError("invalid_arguments");
    if (text.length > markdownLimit) return slackError("msg_too_long");
    // Outside a DM a stream names its recipient.
    if (
      !channel.startsWith("D") &&
      (!stringParam(params.recipient_user_id) || !stringParam(params.recipient_team_id))
    ) {
      return slackError("invalid_arguments");
    }
    const post: FakeSlackPost = {
      channel,
      ts: nextTs(),
      thread_ts: threadTs,
      text,
      user: bot.userId,
      bot_id: bot.botId,
      app_id: bot.appId,
      team: bot.teamId,
      streaming: true,
    };
    this.stored.push(post);
    this.replied(channel, threadTs);
    return ok({ channel, ts: post.ts });
  }

  private appendStream(bot: FakeSlackBot, params: Params): FakeResponse {
    const text = typeof params.markdown_text === "string" ? params.markdown_text : "";
    if (text === "") return slackError("invalid_arguments");
    return this.streamingMessage(bot, params, (post) => {
      post.text += text;
      return ok({ channel: post.channel, ts: post.ts });
    });
  }

  private stopStream(bot: FakeSlackBot, params: Params): FakeResponse {
    const extras = messageExtras(params);
    if (typeof extras === "string") return slackError(extras);
    const { metadata, blocks } = extras;
    return this.streamingMessage(bot, params, (post) => {
      if (typeof params.markdown_text === "string") post.text += params.markdown_text;
      if (metadata) post.metadata = metadata;
      // Appended under the streamed text.
      if (blocks) post.blocks = [...(post.blocks ?? []), ...blocks];
      post.streaming = false;
      const { channel, ...message } = post;
      return ok({ channel, ts: post.ts, message: { type: "message", ...message } });
    });
  }

  /** Replaces a message's text and blocks; a message still streaming cannot be updated (stop it first). */
  private update(bot: FakeSlackBot, params: Params): FakeResponse {
    const text = stringParam(params.markdown_text) ?? stringParam(params.text);
    if (!text) return slackError("no_text");
    if (text.length > markdownLimit) return slackError("msg_too_long");
    const extras = messageExtras(params);
    if (typeof extras === "string") return slackError(extras);
    const { metadata, blocks } = extras;
    const post = this.ownMessage(bot, params);
    if (typeof post === "string") return slackError(post);
    if (post.streaming) return slackError("cant_update_message");
    post.text = text;
    if (blocks) post.blocks = blocks;
    else delete post.blocks;
    post.updates = (post.updates ?? 0) + 1;
    if (metadata) post.metadata = metadata;
    return ok({ channel: post.channel, ts: post.ts, text });
  }

  private streamingMessage(bot: FakeSlackBot, params: Params, act: (post: FakeSlackPost) => FakeResponse) {
    if (typeof params.markdown_text === "string" && params.markdown_text.length > markdownLimit) {
      return slackError("msg_too_long");
    }
    const post = this.ownMessage(bot, params);
    if (typeof post === "string") return slackError(post);
    if (!post.streaming) return slackError("message_not_in_streaming_state");
    return act(post);
  }

  /** The bot's own message at channel + ts, or the error Slack names. */
  private ownMessage(bot: FakeSlackBot, params: Params): FakeSlackPost | string {
    const channel = stringParam(params.channel);
    const ts = stringParam(params.ts);
    if (!channel) return "channel_not_found";
    const post = this.stored.find((p) => p.channel === channel && p.ts === ts);
    if (!post) return "message_not_found";
    if (post.bot_id !== bot.botId) return "cant_update_message";
    return post;
  }

  /** Slack clears an assistant thread's status when the app replies in it. */
  private replied(channel: string, threadTs: string | undefined): void {
    const thread = threadTs ? this.threads.get(`${channel}:${threadTs}`) : undefined;
    if (thread) thread.status = "";
  }

  private assistantThreadOf(params: Params): FakeAssistantThread | string {
    const channel = stringParam(params.channel_id);
    const threadTs = stringParam(params.thread_ts);
    if (!channel) return "channel_not_found";
    if (!threadTs) return "invalid_arguments";
    const key = `${channel}:${threadTs}`;
    const thread = this.threads.get(key) ?? { status: "" };
    this.threads.set(key, thread);
    return thread;
  }

  private setStatus(params: Params): FakeResponse {
    if (typeof params.status !== "string") return slackError("invalid_arguments");
    const thread = this.assistantThreadOf(params);
    if (typeof thread === "string") return slackError(thread);
    thread.status = params.status;
    return ok({});
  }

  private setTitle(params: Params): FakeResponse {
    const title = stringParam(params.title);
    if (!title) return slackError("invalid_arguments");
    const thread = this.assistantThreadOf(params);
    if (typeof thread === "string") return slackError(thread);
    thread.title = title;
    return ok({});
  }

  private setSuggestedPrompts(params: Params): FakeResponse {
    let prompts: unknown;
    try {
      prompts = typeof params.prompts === "string" ? JSON.parse(params.prompts) : params.prompts;
    } catch {
      return slackError("invalid_arguments");
    }
    const valid =
      Array.isArray(prompts) &&
      prompts.length >= 1 &&
      prompts.length <= 4 &&
      prompts.every((p) => isParams(p) && stringParam(p.title) && stringParam(p.message));
    if (!valid) return slackError("invalid_arguments");
    const thread = this.assistantThreadOf(params);
    if (typeof thread === "string") return slackError(thread);
    thread.prompts = (prompts as { title: string; message: string }[]).map(({ title, message }) => ({
      title,
      message,
    }));
    return ok({});
  }

  /** The thread rooted at `ts`, oldest first, cursor-paginated; metadata only with include_all_metadata. */
  private replies(bot: FakeSlackBot, params: Params): FakeResponse {
    const channel = stringParam(params.channel);
    const root = stringParam(params.ts);
    if (!channel) return slackError("channel_not_found");
    if (!root) return slackError("invalid_arguments");
    const withMetadata = params.include_all_metadata === true || params.include_all_metadata === "true";
    const thread = [...this.stored, ...this.written]
      .filter((post) => post.team === bot.teamId && post.channel === channel)
      .filter((post) => post.ts === root || post.thread_ts === root)
      .sort((a, b) => Number(a.ts) - Number(b.ts))
      .map(({ channel: _channel, ...message }) => {
        const { metadata, streaming: _streaming, updates: _updates, ...fields } = message as FakeSlackPost;
        return { type: "message", ...fields, ...(withMetadata && metadata ? { metadata } : {}) };
      });
    const limit = Math.max(1, Math.min(Number(params.limit) || 1000, 1000));
    const offset = Number(stringParam(params.cursor)?.replace(/^offset:/, "") ?? 0) || 0;
    const page = thread.slice(offset, offset + limit);
    const more = offset + limit < thread.length;
    return ok({
      messages: page,
      has_more: more,
      response_metadata: { next_cursor: more ? `offset:${offset + limit}` : "" },
    });
  }
}

function ok(body: Params): FakeResponse {
  return { status: 200, body: { ok: true, ...body } };
}

function slackError(error: string): FakeResponse {
  return { status: 200, body: { ok: false, error } };
}

function paramsOf(call: RecordedCall): Params {
  return { ...Object.fromEntries(call.query), ...(isParams(call.body) ? call.body : {}) };
}

function isParams(value: unknown): value is Params {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringParam(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A message's metadata and blocks, or the error Slack answers for the first of them that is malformed. */
function messageExtras(params: Params): Pick<FakeSlackPost, "metadata" | "blocks"> | string {
  let metadata: FakeSlackPost["metadata"];
  try {
    metadata = parseMetadata(params.metadata);
  } catch {
    return "invalid_metadata_format";
  }
  try {
    return { metadata, blocks: parseBlocks(params.blocks) };
  } catch {
    return "invalid_blocks";
  }
}

/** @slack/web-api sends objects as JSON strings inside a form; a JSON body carries the object itself. */
function parseMetadata(value: unknown): FakeSlackPost["metadata"] {
  if (value === undefined || value === "") return undefined;
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value;
  if (!isParams(parsed) || typeof parsed.event_type !== "string" || !isParams(parsed.event_payload)) {
    throw new Error("invalid metadata");
  }
  return { event_type: parsed.event_type, event_payload: parsed.event_payload };
}

/**
 * Blocks as @slack/web-api sends them (a JSON string inside a form, the array itself in a JSON body). Like Slack, it
 * refuses what is not a list of typed blocks, and a markdown block over its 12,000 characters.
 */
function parseBlocks(value: unknown): FakeSlackBlock[] | undefined {
  if (value === undefined || value === "") return undefined;
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value;
  if (!Array.isArray(parsed) || !parsed.every((block) => isParams(block) && typeof block.type === "string")) {
    throw new Error("invalid blocks");
  }
  const blocks = parsed as FakeSlackBlock[];
  const markdown = blocks.filter((b) => b.type === "markdown").reduce((n, b) => n + String(b.text ?? "").length, 0);
  if (markdown > markdownLimit) throw new Error("markdown blocks too long");
  return blocks;
}
