import { randomBytes } from "node:crypto";
import type { InboundRequest } from "@resident/core";
import { type CryptoKey, SignJWT } from "jose";
import { type FakeResponse, FakeServer, type RecordedCall } from "../fake-server.ts";
import { nextTeamsMessageId, type TeamsActivity } from "./activities.ts";
import { generateSigningKey, type SigningKey } from "./signing-keys.ts";

export interface FakeBotFrameworkOptions {
  /**
   * The JWKS's signing keys by kid, each with the channels it endorses; the first signs by default. Fixed at start:
   * botbuilder caches a metadata URL's keys for hours, so a key published later would not be seen.
   */
  keys?: Record<string, string[]>;
}

export interface ChannelJwtOptions {
  /** The audience: the bot's Microsoft app id. */
  appId: string;
  /** The `serviceurl` claim. */
  serviceUrl: string;
  issuer?: string;
  /** Seconds until it expires; negative for a token that expired that long ago. Default one hour. */
  expiresIn?: number;
  /** Sign with this key rather than the published one named by `kid` (a forgery). */
  key?: CryptoKey;
  kid?: string;
}

export interface RecordedActivity {
  conversationId: string;
  /** The activity replied to (`POST …/activities/:activityId`); absent for a new post. */
  replyToId?: string;
  /** The app whose bearer token authorized the post. */
  appId: string;
  /** The id the connector gave the posted activity. */
  id: string;
  activity: Record<string, unknown>;
  /** When the connector accepted it (ms since the epoch). */
  at: number;
  /** How often the bot replaced it in place since (PUT). */
  updates: number;
}

/** A streamed message as the fake connector keeps it: its updates, in order, until its final message. */
export interface FakeTeamsStream {
  conversationId: string;
  /** The user's activity the stream answers. */
  replyToId?: string;
  updates: { streamType: string; streamSequence: number; text: string }[];
  /** Set once the final message arrived; the stream is then the message `activities` holds under its id. */
  finished: boolean;
  /** Its time ran out before a final message (Teams gives a stream two minutes): it takes no more stream writes. */
  expired?: boolean;
}

/** A reply the connector would receive: the conversation and the user's activity it answers. */
export interface ReplyTarget {
  conversationId: string;
  activityId: string;
}

/** The scope a bot asks for when it fetches its bot→channel token. */
export const botFrameworkScope = "https://api.botframework.com/.default";

const region = "amer";
const openIdPath = "/v1/.well-known/openidconfiguration";
const jwksPath = "/v1/.well-known/keys";
const multiTenantAuthority = "botframework.com";
const tokenLifetimeSeconds = 3599;

/**
 * The Bot Framework on loopback: the channel's OpenID metadata and JWKS (endorsed RSA keys), the Microsoft login
 * token endpoint (client credentials), and the connector, which records every activity a bot posts and can fail,
 * stall, rate-limit, or accept a post and then not answer in time.
 */
export class FakeBotFramework {
  readonly server: FakeServer;
  /** Activities the connector accepted, in order. */
  readonly activities: RecordedActivity[] = [];
  /** Streams (by stream id) and plain typing indicators, apart from the messages above. */
  readonly streams = new Map<string, FakeTeamsStream>();
  readonly typing: { conversationId: string; replyToId?: string; at: number }[] = [];
  private readonly apps = new Map<string, { password: string; authority: string }>();
  private readonly tokens = new Map<string, { appId: string; expiresAt: number }>();

  private constructor(private readonly keys: SigningKey[]) {
    const postActivity = (call: RecordedCall) => this.postActivity(call);
    this.server = new FakeServer({
      [`GET ${openIdPath}`]: () => ({ status: 200, body: this.openIdMetadata() }),
      [`GET ${jwksPath}`]: () => ({ status: 200, body: { keys: this.keys.map((key) => key.jwk) } }),
      "POST /:authority/oauth2/v2.0/token": (call) => this.issueToken(call, call.params.authority ?? ""),
      [`POST /${region}/v3/conversations/:conversationId/activities/:activityId`]: postActivity,
      [`POST /${region}/v3/conversations/:conversationId/activities`]: postActivity,
      [`PUT /${region}/v3/conversations/:conversationId/activities/:activityId`]: (call) => this.updateActivity(call),
    });
  }

  static async start(options: FakeBotFrameworkOptions = {}): Promise<FakeBotFramework> {
    const keys = options.keys ?? { "fake-bot-framework": ["msteams", "webchat"] };
    const fake = new FakeBotFramework(
      await Promise.all(Object.entries(keys).map(([kid, endorsements]) => generateSigningKey(kid, endorsements))),
    );
    await fake.server.start();
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  /** The activities' serviceUrl; it has a path, as Teams' regional ones do (…/amer/). */
  get serviceUrl(): string {
    return `${this.url}/${region}/`;
  }

  /** TEAMS_OPENID_METADATA_URL */
  get openIdMetadataUrl(): string {
    return `${this.url}${openIdPath}`;
  }

  /** TEAMS_TOKEN_ISSUER */
  get issuer(): string {
    return this.url;
  }

  /** TEAMS_LOGIN_URL: the token endpoint is `<loginUrl>/<tenant or botframework.com>/oauth2/v2.0/token`. */
  get loginUrl(): string {
    return this.url;
  }

  /** Lets the token endpoint accept this app; with `tenantId` it is a SingleTenant app of that tenant. */
  registerApp(appId: string, password: string, tenantId?: string): this {
    this.apps.set(appId, { password, authority: tenantId ?? multiTenantAuthority });
    return this;
  }

  /** A channel→bot JWT as the Bot Framework signs it. */
  signChannelJwt(options: ChannelJwtOptions): Promise<string> {
    const kid = options.kid ?? this.keys[0]?.kid ?? "";
    const key = options.key ?? this.keys.find((k) => k.kid === kid)?.privateKey;
    if (!key) throw new Error(`no signing key ${kid}`);
    const now = Math.floor(Date.now() / 1000);
    const expiresAt = now + (options.expiresIn ?? 3600);
    const issuedAt = Math.min(now, expiresAt - 3600);
    return new SignJWT({ serviceurl: options.serviceUrl })
      .setProtectedHeader({ alg: "RS256", typ: "JWT", kid, x5t: kid })
      .setIssuer(options.issuer ?? this.issuer)
      .setAudience(options.appId)
      .setIssuedAt(issuedAt)
      .setNotBefore(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(key);
  }

  /** The delivery of `activity` to the bot, with a channel JWT for its recipient and serviceUrl unless overridden. */
  async request(activity: TeamsActivity, jwt: Partial<ChannelJwtOptions> = {}): Promise<InboundRequest> {
    const token = await this.signChannelJwt({
      appId: activity.recipient.id.replace(/^28:/, ""),
      serviceUrl: activity.serviceUrl,
      ...jwt,
    });
    return delivery(activity, token);
  }

  /** The connector route a reply to `target` is posted to, for FakeServer's call records and faults. */
  replyRoute(target: ReplyTarget): string {
    const conversation = encodeURIComponent(target.conversationId);
    return `POST /${region}/v3/conversations/${conversation}/activities/${encodeURIComponent(target.activityId)}`;
  }

  /** The next `times` replies to `target` are refused with `status`; nothing is posted. */
  fail(target: ReplyTarget, status = 500, times = 1): this {
    const body = { error: { code: "ServiceError", message: `fake failure ${status}` } };
    this.server.fault(this.replyRoute(target), { respond: { status, body } }, times);
    return this;
  }

  /** The next `times` replies to `target` are throttled (429 unless told), with Retry-After if given. */
  rateLimit(target: ReplyTarget, options: { status?: number; retryAfterSeconds?: number } = {}, times = 1): this {
    const headers: Record<string, string> =
      options.retryAfterSeconds === undefined ? {} : { "retry-after": String(options.retryAfterSeconds) };
    const body = { error: { code: "Throttled", message: "Too many requests" } };
    this.server.fault(this.replyRoute(target), { respond: { status: options.status ?? 429, headers, body } }, times);
    return this;
  }

  /** The next `times` replies to `target` wait `ms` before the connector posts them (a slow platform). */
  stall(target: ReplyTarget, ms: number, times = 1): this {
    this.server.fault(this.replyRoute(target), { stallMs: ms }, times);
    return this;
  }

  /** The next `times` replies to `target` are posted at once but answered only after `ms`. */
  acceptThenTimeOut(target: ReplyTarget, ms: number, times = 1): this {
    this.server.fault(this.replyRoute(target), { delayAnswerMs: ms }, times);
    return this;
  }

  /** Ends every open stream as its two minutes would: stream writes to it are refused; an update makes it a message. */
  expireStreams(): this {
    for (const stream of this.streams.values()) if (!stream.finished) stream.expired = true;
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private openIdMetadata() {
    return {
      issuer: this.issuer,
      authorization_endpoint: "https://invalid.botframework.com",
      jwks_uri: `${this.url}${jwksPath}`,
      id_token_signing_alg_values_supported: ["RS256"],
      token_endpoint_auth_methods_supported: ["private_key_jwt"],
    };
  }

  private issueToken(call: RecordedCall, authority: string): FakeResponse {
    const form = (call.body ?? {}) as Record<string, string | undefined>;
    const appId = form.client_id ?? "";
    const app = this.apps.get(appId);
    if (form.grant_type !== "client_credentials" || form.scope !== botFrameworkScope) {
      return aadError(400, "invalid_request", "AADSTS900144: The request must hold client credentials and the scope.");
    }
    if (!app || app.authority !== authority) {
      const text = `AADSTS700016: Application with identifier '${appId}' was not found in the directory '${authority}'.`;
      return aadError(400, "unauthorized_client", text);
    }
    if (form.client_secret !== app.password) {
      return aadError(401, "invalid_client", `AADSTS7000215: Invalid client secret provided for app '${appId}'.`);
    }
    const token = randomBytes(24).toString("base64url");
    this.tokens.set(token, { appId, expiresAt: Date.now() + tokenLifetimeSeconds * 1000 });
    const lifetime = tokenLifetimeSeconds;
    return {
      status: 200,
      body: { token_type: "Bearer", expires_in: lifetime, ext_expires_in: lifetime, access_token: token },
    };
  }

  /** The app whose live bearer token authorizes the call, if any. */
  private grantOf(call: RecordedCall): { appId: string } | undefined {
    const token = /^Bearer (.+)$/.exec(String(call.headers.authorization ?? ""))?.[1];
    const grant = token === undefined ? undefined : this.tokens.get(token);
    return grant && grant.expiresAt > Date.now() ? grant : undefined;
  }

  private postActivity(call: RecordedCall): FakeResponse {
    const { params } = call;
    const grant = this.grantOf(call);
    if (!grant) return { status: 401, body: { message: "Authorization has been denied for this request." } };
    const activity = (call.body ?? {}) as Record<string, unknown>;
    const conversationId = params.conversationId ?? "";
    const info = streamInfoOf(activity);
    if (info) return this.streamActivity(call, activity, info, grant.appId);
    if (activity.type === "typing") {
      this.typing.push({ conversationId, replyToId: params.activityId, at: Date.now() });
      return { status: 201, body: { id: nextTeamsMessageId() } };
    }
    const id = nextTeamsMessageId();
    this.activities.push({
      conversationId: params.conversationId ?? "",
      replyToId: params.activityId,
      appId: grant.appId,
      id,
      activity,
      at: Date.now(),
      updates: 0,
    });
    return { status: 201, body: { id } };
  }

  /**
   * The connector's update (PUT): replaces a message the bot posted, in its conversation. A stream whose time ran out
   * is the message it showed, so an update finishes it; an open stream is not a message yet (404).
   */
  private updateActivity(call: RecordedCall): FakeResponse {
    const grant = this.grantOf(call);
    if (!grant) return { status: 401, body: { message: "Authorization has been denied for this request." } };
    const conversationId = call.params.conversationId ?? "";
    const id = call.params.activityId ?? "";
    const activity = (call.body ?? {}) as Record<string, unknown>;
    const posted = this.activities.find((a) => a.id === id && a.conversationId === conversationId);
    if (posted) {
      posted.activity = activity;
      posted.updates++;
      return { status: 200, body: { id } };
    }
    const stream = this.streams.get(id);
    if (!stream?.expired || stream.conversationId !== conversationId) return streamError(404, "NotFound");
    stream.finished = true;
    const replyToId = stream.replyToId;
    this.activities.push({ conversationId, replyToId, appId: grant.appId, id, activity, at: Date.now(), updates: 1 });
    return { status: 200, body: { id } };
  }

  /**
   * Teams' streaming protocol: only in personal chats (else 403 ContentStreamNotAllowed); the first update (no stream
   * id, sequence 1) opens a stream named by its activity id; later updates name it with rising sequence numbers;
   * a final message ends it and becomes the one message, under the stream's id.
   */
  private streamActivity(
    call: RecordedCall,
    activity: Record<string, unknown>,
    info: Record<string, unknown>,
    appId: string,
  ): FakeResponse {
    const conversationId = call.params.conversationId ?? "";
    const conversation = activity.conversation as { conversationType?: string } | undefined;
    if (conversation?.conversationType !== "personal") return streamError(403, "ContentStreamNotAllowed");
    const streamType = String(info.streamType ?? "");
    const text = typeof activity.text === "string" ? activity.text : "";
    if (activity.type === "typing" && info.streamId === undefined) {
      if (info.streamSequence !== 1) return streamError(400, "ContentStreamSequenceOrderPreConditionFailed");
      const id = nextTeamsMessageId();
      const updates = [{ streamType, streamSequence: 1, text }];
      this.streams.set(id, { conversationId, replyToId: call.params.activityId, updates, finished: false });
      return { status: 201, body: { id } };
    }
    const streamId = String(info.streamId ?? "");
    const stream = this.streams.get(streamId);
    if (!stream || stream.conversationId !== conversationId) return streamError(404, "ContentStreamNotFound");
    if (stream.finished || stream.expired) return streamError(403, "ContentStreamNotAllowed");
    if (activity.type === "typing") {
      const last = stream.updates.at(-1)?.streamSequence ?? 0;
      const sequence = Number(info.streamSequence);
      if (!(sequence > last)) return streamError(400, "ContentStreamSequenceOrderPreConditionFailed");
      stream.updates.push({ streamType, streamSequence: sequence, text });
      return { status: 202, body: { id: streamId } };
    }
    if (activity.type !== "message" || streamType !== "final") return streamError(400, "BadArgument");
    stream.finished = true;
    this.activities.push({
      conversationId,
      replyToId: call.params.activityId,
      appId,
      id: streamId,
      activity,
      at: Date.now(),
      updates: 0,
    });
    return { status: 201, body: { id: streamId } };
  }
}

/**
 * The delivery of `activity` under a channel JWT. The channel signs tokens per bot and serviceUrl, not per activity,
 * so one token serves many deliveries for its lifetime.
 */
export function delivery(activity: TeamsActivity, token: string): InboundRequest {
  return {
    rawBody: Buffer.from(JSON.stringify(activity)),
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json; charset=utf-8" },
    query: {},
  };
}

function streamInfoOf(activity: Record<string, unknown>): Record<string, unknown> | undefined {
  const entities = Array.isArray(activity.entities) ? (activity.entities as Record<string, unknown>[]) : [];
  return entities.find((entity) => entity?.type === "streaminfo");
}

function streamError(status: number, code: string): FakeResponse {
  return { status, body: { error: { code, message: code } } };
}

function aadError(status: number, error: string, description: string): FakeResponse {
  return { status, body: { error, error_description: description } };
}
