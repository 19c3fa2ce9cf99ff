import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { appMention, FakeSlack, type FakeSlackBot } from "../src/slack/index.ts";

/* The fake Socket Mode, driven by a plain WebSocket client: what a test of resident relies on it to do. */

const slack = new FakeSlack({ socketMode: { ackTimeoutMs: 200, retries: 2, maxConnections: 3, refreshGraceMs: 50 } });
let bot: FakeSlackBot;
let appToken: string;

beforeAll(async () => {
  await slack.start();
  bot = slack.addBot();
  appToken = slack.socketMode.addApp(bot.appId);
});
afterAll(() => slack.close());

interface Client {
  socket: WebSocket;
  received: Record<string, unknown>[];
}

async function connect(token = appToken): Promise<Client> {
  const res = await fetch(`${slack.apiUrl}apps.connections.open`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  const { url } = (await res.json()) as { url: string };
  const socket = new WebSocket(url);
  const received: Record<string, unknown>[] = [];
  socket.on("message", (data) => received.push(JSON.parse(String(data))));
  await vi.waitFor(() => expect(received[0]?.type).toBe("hello"));
  return { socket, received };
}

const envelopesOf = (client: Client) => client.received.filter((m) => m.type === "events_api");
const ack = (client: Client, envelope: Record<string, unknown>) =>
  client.socket.send(JSON.stringify({ envelope_id: envelope.envelope_id }));

describe("the fake Slack's Socket Mode", () => {
  it("opens connections only for a known app-level token, each URL once", async () => {
    const refused = await fetch(`${slack.apiUrl}apps.connections.open`, {
      method: "POST",
      headers: { authorization: "Bearer xapp-1-unknown" },
    });
    expect(await refused.json()).toEqual({ ok: false, error: "invalid_auth" });
    const res = await fetch(`${slack.apiUrl}apps.connections.open`, {
      method: "POST",
      headers: { authorization: `Bearer ${appToken}` },
    });
    const { url } = (await res.json()) as { url: string };
    const first = new WebSocket(url);
    await new Promise((resolve) => first.once("open", resolve));
    const again = new WebSocket(url);
    const failed = await new Promise((resolve) => {
      again.once("error", () => resolve(true));
      again.once("open", () => resolve(false));
    });
    expect(failed).toBe(true);
    first.close();
    await vi.waitFor(() => expect(slack.socketMode.open(bot.appId)).toHaveLength(0));
  });

  it("sends each envelope to one open connection, and again with retry_attempt until it is acked", async () => {
    const clients = [await connect(), await connect()];
    const envelope = slack.socketMode.deliver(bot.appId, appMention(bot, "hi"));
    await vi.waitFor(() => expect(clients.flatMap(envelopesOf)).toHaveLength(1));
    // Not acked: sent again after the ack timeout, to a random connection, marked as a retry.
    await vi.waitFor(() => expect(clients.flatMap(envelopesOf)).toHaveLength(2));
    const [first, second] = envelope.attempts;
    expect(first).toMatchObject({ retryAttempt: 0, retryReason: "" });
    expect(second).toMatchObject({ retryAttempt: 1, retryReason: "timeout" });
    const holder = clients.find((c) => envelopesOf(c).some((m) => m.retry_attempt === 1)) as Client;
    expect(envelopesOf(holder).at(-1)).toMatchObject({ envelope_id: envelope.envelopeId, retry_reason: "timeout" });
    ack(holder, envelopesOf(holder).at(-1) as Record<string, unknown>);
    await vi.waitFor(() => expect(envelope.acks).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(envelope.attempts).toHaveLength(2);
    expect(slack.socketMode.unacknowledged()).not.toContain(envelope);
    for (const c of clients) c.socket.close();
  });

  it("gives an envelope up after its retries", async () => {
    const client = await connect();
    const envelope = slack.socketMode.deliver(bot.appId, appMention(bot, "nobody acks"));
    await vi.waitFor(() => expect(envelope.givenUp).toBe(true));
    expect(envelope.attempts.map((a) => a.retryAttempt)).toEqual([0, 1, 2]);
    client.socket.close();
  });

  it("sends disconnect (refresh_requested) and closes; refuses connections past the app's limit", async () => {
    const clients = [await connect(), await connect(), await connect()];
    const extra = await connect();
    await vi.waitFor(() => expect(extra.received.at(-1)).toMatchObject({ reason: "too_many_websockets" }));
    expect(slack.socketMode.open(bot.appId)).toHaveLength(3);
    expect(slack.socketMode.disconnect(bot.appId, "refresh_requested")).toBe(3);
    for (const c of clients) {
      await vi.waitFor(() =>
        expect(c.received.at(-1)).toMatchObject({ type: "disconnect", reason: "refresh_requested" }),
      );
    }
    await vi.waitFor(() => expect(slack.socketMode.open(bot.appId)).toHaveLength(0));
  });
});
