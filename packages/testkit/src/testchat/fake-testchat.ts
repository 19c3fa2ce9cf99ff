import { randomBytes } from "node:crypto";
import type { RecordedReply } from "../adapter-contract.ts";
import { type FakeResponse, FakeServer, type RecordedCall } from "../fake-server.ts";

export interface FakeTestchatBot {
  id: string;
  name: string;
  token: string;
}

export interface FakeTestchatMessage {
  id: string;
  room: string;
  author: string;
  text: string;
  reply_to?: string;
}

/** Testchat's API on a real loopback server: GET /me, and posting and listing a room's messages, all recorded. */
export class FakeTestchat {
  readonly server = new FakeServer({
    "GET /me": (call) => this.as(call, (bot) => ({ status: 200, body: { id: bot.id, name: bot.name } })),
    "POST /rooms/:room/messages": (call) => this.as(call, (bot) => this.post(call, bot)),
    "GET /rooms/:room/messages": (call) =>
      this.as(call, () => ({ status: 200, body: this.posts.filter((m) => m.room === call.params.room) })),
  });
  /** Messages posted through the API, in order. */
  readonly posts: FakeTestchatMessage[] = [];
  private readonly bots: FakeTestchatBot[] = [];

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  get apiUrl(): string {
    return this.server.url;
  }

  addBot(name = "resident"): FakeTestchatBot {
    const bot = { id: `B${this.bots.length + 1}`, name, token: `tc-${randomBytes(12).toString("hex")}` };
    this.bots.push(bot);
    return bot;
  }

  replies(): RecordedReply[] {
    return this.posts.map((post) => ({ conversationId: post.room, text: post.text }));
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private as(call: RecordedCall, answer: (bot: FakeTestchatBot) => FakeResponse): FakeResponse {
    const token = /^Bearer (\S+)$/.exec(String(call.headers.authorization ?? ""))?.[1];
    const bot = this.bots.find((b) => b.token === token);
    return bot ? answer(bot) : { status: 401, body: { error: "invalid token" } };
  }

  private post(call: RecordedCall, bot: FakeTestchatBot): FakeResponse {
    const { text, reply_to } = call.body as { text: string; reply_to?: string };
    const message = { id: `M${this.posts.length + 1}`, room: call.params.room ?? "", author: bot.id, text, reply_to };
    this.posts.push(message);
    return { status: 201, body: { id: message.id } };
  }
}
