import type { RecordedReply } from "../adapter-contract.ts";
import { type FakeResponse, FakeServer, type RecordedCall } from "../fake-server.ts";
import { SlidingWindow } from "./sliding-window.ts";
import { nextChatworkMessageId } from "./webhook.ts";

export interface FakeChatworkAccount {
  apiToken: string;
  accountId: number;
  name: string;
}

export interface FakeChatworkRoom {
  roomId: number;
  type: "my" | "direct" | "group";
  name?: string;
}

export interface FakeChatworkMessage {
  roomId: number;
  messageId: string;
  accountId: number;
  body: string;
  /** Epoch seconds. */
  sendTime: number;
}

export interface FakeChatworkLimit {
  limit: number;
  windowMs: number;
}

export interface FakeChatworkOptions {
  accounts: FakeChatworkAccount[];
  rooms: FakeChatworkRoom[];
  /** The API's path prefix; the adapter's apiUrl is `url + basePath`. */
  basePath?: string;
  /** Chatwork's published limit: 300 requests per 5 minutes per API token. */
  perToken?: FakeChatworkLimit;
  /** Chatwork's published limit: 10 posts per 10 seconds per room. */
  postsPerRoom?: FakeChatworkLimit;
}

/** GET /rooms/{id}/messages answers at most the latest 100 messages. */
const listedMessages = 100;

const errors = (status: number, ...messages: string[]): FakeResponse => ({ status, body: { errors: messages } });

/**
 * The Chatwork API on a real loopback HTTP server: /me, /rooms, posting and listing room messages, with Chatwork's
 * rate limits enforced (x-ratelimit-* headers on every answer, 429 beyond them) and fault helpers for the post.
 */
export class FakeChatwork {
  readonly server: FakeServer;
  /** Messages posted through the API, in order of arrival. */
  readonly posts: FakeChatworkMessage[] = [];
  /** How many 429s the fake has answered. */
  rateLimited = 0;
  private readonly basePath: string;
  private readonly accounts: FakeChatworkAccount[];
  private readonly rooms: FakeChatworkRoom[];
  private readonly messages = new Map<number, FakeChatworkMessage[]>();
  /** How far each token has read each room, for listings without force=1 (only what is new to the reader). */
  private readonly readUpTo = new Map<string, number>();
  private readonly tokenWindow: SlidingWindow;
  private readonly roomWindow: SlidingWindow;

  constructor(options: FakeChatworkOptions) {
    this.basePath = options.basePath ?? "/v2";
    this.accounts = options.accounts;
    this.rooms = options.rooms;
    const perToken = options.perToken ?? { limit: 300, windowMs: 5 * 60_000 };
    const postsPerRoom = options.postsPerRoom ?? { limit: 10, windowMs: 10_000 };
    this.tokenWindow = new SlidingWindow(perToken.limit, perToken.windowMs);
    this.roomWindow = new SlidingWindow(postsPerRoom.limit, postsPerRoom.windowMs);
    const base = this.basePath;
    this.server = new FakeServer({
      [`GET ${base}/me`]: (call) => this.limited(call, undefined, (account) => this.me(account)),
      [`GET ${base}/rooms`]: (call) => this.limited(call, undefined, () => this.listRooms()),
      [`GET ${base}/rooms/:roomId/messages`]: (call) =>
        this.limited(call, undefined, (account) => this.listMessages(call, account, Number(call.params.roomId))),
      [`POST ${base}/rooms/:roomId/messages`]: (call) =>
        this.limited(call, Number(call.params.roomId), (account) =>
          this.post(call, account, Number(call.params.roomId)),
        ),
    });
  }

  async start(port = 0): Promise<this> {
    await this.server.start(port);
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** What the adapter takes as its API URL (CHATWORK_API_URL). */
  get apiUrl(): string {
    return `${this.server.url}${this.basePath}`;
  }

  /** A message someone wrote in a room (not through the API), so that listings show it. */
  addMessage(message: { roomId: number; accountId: number; body: string }): FakeChatworkMessage {
    return this.store({ ...message, messageId: nextChatworkMessageId(), sendTime: Math.floor(Date.now() / 1000) });
  }

  /** The posts, as the shared adapter contract counts replies. */
  replies(): RecordedReply[] {
    return this.posts.map((post) => ({ conversationId: String(post.roomId), text: post.body }));
  }

  /** The room's next `times` posts answer `status` without posting. */
  failPosts(roomId: number, status = 500, times = 1): this {
    this.server.fault(this.postRoute(roomId), { respond: errors(status, "Internal Server Error") }, times);
    return this;
  }

  /** The room's next `times` posts wait `ms` before they are posted and answered. */
  stallPosts(roomId: number, ms: number, times = 1): this {
    this.server.fault(this.postRoute(roomId), { stallMs: ms }, times);
    return this;
  }

  /** The room's next `times` posts are posted at once, but answered only after `ms`: the client times out. */
  acceptPostsThenTimeOut(roomId: number, ms = 30_000, times = 1): this {
    this.server.fault(this.postRoute(roomId), { delayAnswerMs: ms }, times);
    return this;
  }

  /** The room's next `times` listings answer 429 (Chatwork's rate limit) without listing. */
  rateLimitListings(roomId: number, times = 1): this {
    this.server.fault(this.listRoute(roomId), { respond: errors(429, "Rate limit exceeded") }, times);
    return this;
  }

  /** How often the room's messages were listed, answered or not. */
  listings(roomId: number): number {
    return this.server.callsTo(this.listRoute(roomId)).length;
  }

  clearFaults(): this {
    this.server.clearFaults();
    return this;
  }

  private listRoute(roomId: number): string {
    return `GET ${this.basePath}/rooms/${roomId}/messages`;
  }

  postRoute(roomId: number): string {
    return `POST ${this.basePath}/rooms/${roomId}/messages`;
  }

  private limited(
    call: RecordedCall,
    postRoomId: number | undefined,
    handle: (account: FakeChatworkAccount) => FakeResponse,
  ): FakeResponse {
    const account = this.accounts.find((a) => a.apiToken === call.headers["x-chatworktoken"]);
    if (!account) return errors(401, "Invalid API token");
    const now = Date.now();
    const token = account.apiToken;
    const admitted =
      this.tokenWindow.admit(token, now) && (postRoomId === undefined || this.roomWindow.admit(`${postRoomId}`, now));
    const response = admitted ? handle(account) : errors(429, "Rate limit exceeded");
    if (!admitted) this.rateLimited++;
    return { ...response, headers: { ...response.headers, ...this.rateHeaders(token, now) } };
  }

  private rateHeaders(token: string, now: number): Record<string, string> {
    return {
      "x-ratelimit-limit": String(this.tokenWindow.limit),
      "x-ratelimit-remaining": String(this.tokenWindow.remaining(token, now)),
      "x-ratelimit-reset": String(Math.ceil(this.tokenWindow.resetAt(token, now) / 1000)),
    };
  }

  private me(account: FakeChatworkAccount): FakeResponse {
    const myRoom = this.rooms.find((room) => room.type === "my");
    return { status: 200, body: { account_id: account.accountId, room_id: myRoom?.roomId, name: account.name } };
  }

  private listRooms(): FakeResponse {
    const rooms = this.rooms.map(({ roomId, type, name }) => ({
      room_id: roomId,
      type,
      name: name ?? `room ${roomId}`,
    }));
    return { status: 200, body: rooms };
  }

  private listMessages(call: RecordedCall, account: FakeChatworkAccount, roomId: number): FakeResponse {
    if (!this.rooms.some((room) => room.roomId === roomId)) return errors(404, "Room not found");
    const all = this.messages.get(roomId) ?? [];
    const readerKey = `${account.apiToken}:${roomId}`;
    const listed =
      call.query.get("force") === "1" ? all.slice(-listedMessages) : all.slice(this.readUpTo.get(readerKey) ?? 0);
    this.readUpTo.set(readerKey, all.length);
    if (listed.length === 0) return { status: 204 };
    return { status: 200, body: listed.map((message) => this.asListed(message)) };
  }

  private post(call: RecordedCall, account: FakeChatworkAccount, roomId: number): FakeResponse {
    if (!this.rooms.some((room) => room.roomId === roomId)) return errors(404, "Room not found");
    const body = (call.body as { body?: unknown } | undefined)?.body;
    if (typeof body !== "string" || body === "") return errors(400, "Invalid parameter: body");
    const message = this.addMessage({ roomId, accountId: account.accountId, body });
    this.posts.push(message);
    return { status: 200, body: { message_id: message.messageId } };
  }

  private store(message: FakeChatworkMessage): FakeChatworkMessage {
    const room = this.messages.get(message.roomId) ?? [];
    room.push(message);
    this.messages.set(message.roomId, room);
    return message;
  }

  private asListed(message: FakeChatworkMessage) {
    const author = this.accounts.find((a) => a.accountId === message.accountId);
    return {
      message_id: message.messageId,
      account: {
        account_id: message.accountId,
        name: author?.name ?? `user ${message.accountId}`,
        avatar_image_url: "",
      },
      body: message.body,
      send_time: message.sendTime,
      update_time: 0,
    };
  }
}
