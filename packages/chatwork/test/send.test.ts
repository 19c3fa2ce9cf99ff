import { createServer } from "node:net";
import type { ChatEvent } from "@resident/core";
import {
  defaultSenderOptions,
  OutboundSender,
  OutcomeUnknownError,
  PermanentSendError,
  SendRejectedError,
} from "@resident/core";
import { MemoryRateLimiter } from "@resident/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatworkAdapter } from "../src/index.ts";
import { bot, chatworkWorld, groupRoom, mentionDelivery, outbound, user } from "./harness.ts";

describe("ChatworkAdapter.send and findReply", () => {
  let world: Awaited<ReturnType<typeof chatworkWorld>>;
  /** The sender gives a late post this long to land before it reads the room back. */
  const sender = new OutboundSender({ ...defaultSenderOptions, reconcileDelayMs: 1_000 });
  const signal = new AbortController().signal;

  beforeAll(async () => {
    world = await chatworkWorld({ adapter: { timeoutMs: 300 } });
  });
  afterAll(() => world.close());

  /** A user's message in the room (so listings show it) and its mention_to_me delivery, normalized. */
  const ask = (text: string, roomId = groupRoom): ChatEvent => {
    const said = world.fake.addMessage({ roomId, accountId: user.accountId, body: `[To:${bot.accountId}]\n${text}` });
    const inbound = world.adapter.normalize(
      mentionDelivery(text, { roomId, messageId: said.messageId }),
      world.workspace,
      Date.now(),
    );
    if (inbound.kind !== "message") throw new Error("expected a message");
    return inbound.event;
  };
  const ourPosts = () => world.fake.posts.filter((post) => post.accountId === bot.accountId);

  it("posts once, opening with the reply notation that quotes the user's message, and returns Chatwork's id", async () => {
    const event = ask("what are the opening hours?");
    const before = world.fake.posts.length;
    const sent = await world.adapter.send(outbound(event, "9 to 5."), world.workspace);
    const posts = world.fake.posts.slice(before);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      roomId: groupRoom,
      accountId: bot.accountId,
      body: `[rp aid=${user.accountId} to=${groupRoom}-${event.conversation.replyToId}]\n9 to 5.`,
    });
    expect(sent.messageId).toBe(posts[0]?.messageId);
    const call = world.fake.server.callsTo(world.fake.postRoute(groupRoom)).at(-1);
    expect(call?.headers["x-chatworktoken"]).toBe(bot.apiToken);
    expect(call?.headers["content-type"]).toContain("application/x-www-form-urlencoded");
  });

  it("calls a post that is accepted and then times out an unknown outcome, and findReply finds it", async () => {
    const event = ask("accepted, then silence");
    world.fake.acceptPostsThenTimeOut(groupRoom);
    const before = ourPosts().length;
    await expect(world.adapter.send(outbound(event, "an answer"), world.workspace)).rejects.toBeInstanceOf(
      OutcomeUnknownError,
    );
    expect(ourPosts()).toHaveLength(before + 1);
    const found = await world.adapter.findReply(outbound(event, "an answer"), world.workspace);
    expect(found).toEqual({ messageId: ourPosts().at(-1)?.messageId });
    // A second read-back still finds it: the listing is forced, not only what this token has not read yet.
    await expect(world.adapter.findReply(outbound(event, "an answer"), world.workspace)).resolves.toEqual(found);
  });

  it("through the sender: accepted-then-timed-out is reconciled as sent, never posted twice", async () => {
    const event = ask("once only");
    world.fake.acceptPostsThenTimeOut(groupRoom);
    const before = ourPosts().length;
    const delivery = await sender.send(world.adapter, world.workspace, outbound(event, "exactly once"), signal);
    expect(ourPosts()).toHaveLength(before + 1);
    expect(delivery).toEqual({ status: "sent", messageId: ourPosts().at(-1)?.messageId });
  });

  it("finds a post that lands only after the client gave up (a stalled Chatwork)", async () => {
    const event = ask("slow platform");
    world.fake.stallPosts(groupRoom, 600);
    const before = ourPosts().length;
    const delivery = await sender.send(world.adapter, world.workspace, outbound(event, "late but once"), signal);
    expect(ourPosts()).toHaveLength(before + 1);
    expect(delivery).toEqual({ status: "sent", messageId: ourPosts().at(-1)?.messageId });
  });

  it("a 5xx that posted nothing: findReply reports it certainly absent, so the retry is safe", async () => {
    const event = ask("server error");
    world.fake.failPosts(groupRoom, 502);
    const before = ourPosts().length;
    await expect(sender.send(world.adapter, world.workspace, outbound(event, "x"), signal)).rejects.toBeInstanceOf(
      SendRejectedError,
    );
    expect(ourPosts()).toHaveLength(before);
    await world.adapter.send(outbound(event, "the retry"), world.workspace);
    expect(ourPosts()).toHaveLength(before + 1);
  });

  it("does not call a reply absent when it could have scrolled out of the latest 100 messages", async () => {
    const event = ask("busy room");
    for (let i = 0; i < 100; i++)
      world.fake.addMessage({ roomId: groupRoom, accountId: user.accountId, body: `chat ${i}` });
    world.fake.failPosts(groupRoom, 500);
    const before = ourPosts().length;
    const delivery = await sender.send(world.adapter, world.workspace, outbound(event, "x"), signal);
    expect(delivery).toEqual({ status: "unknown" });
    expect(ourPosts()).toHaveLength(before);
  });

  it("does not mistake someone else's reply to the same message for ours", async () => {
    const event = ask("a colleague answers first");
    const { replyToId } = event.conversation;
    world.fake.addMessage({
      roomId: groupRoom,
      accountId: user.accountId,
      body: `[rp aid=${user.accountId} to=${groupRoom}-${replyToId}]\nI can take this`,
    });
    await expect(world.adapter.findReply(outbound(event, "x"), world.workspace)).resolves.toBeUndefined();
  });

  it("throws SendRejectedError with Chatwork's own text when Chatwork refuses the post", async () => {
    const event = ask("wrong room");
    const elsewhere = { ...event, conversation: { ...event.conversation, id: "999" } };
    const error = await world.adapter.send(outbound(elsewhere, "x"), world.workspace).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendRejectedError);
    expect((error as Error).message).toContain("Room not found");
    expect((error as Error).message).not.toContain(bot.apiToken);
  });

  it("throws PermanentSendError when Chatwork answers 403 (the account may not post in the room)", async () => {
    const event = ask("not a member");
    world.fake.failPosts(groupRoom, 403);
    const error = await world.adapter.send(outbound(event, "x"), world.workspace).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentSendError);
    expect((error as Error).message).not.toContain(bot.apiToken);
  });

  it("throws SendRejectedError when the request never left (nothing listening)", async () => {
    const port = await closedPort();
    const closed = new ChatworkAdapter({ apiUrl: `http://127.0.0.1:${port}/v2`, limiter: new MemoryRateLimiter() });
    const error = await closed.send(outbound(ask("unreachable"), "x"), world.workspace).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendRejectedError);
    expect((error as Error).message).not.toContain(bot.apiToken);
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
