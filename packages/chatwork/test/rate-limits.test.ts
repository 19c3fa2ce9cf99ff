import type { ChatEvent } from "@resident/core";
import { OutboundSender, RateLimitedError } from "@resident/core";
import { MemoryRateLimiter } from "@resident/store";
import { afterEach, describe, expect, it } from "vitest";
import { ChatworkAdapter, chatworkLimits } from "../src/index.ts";
import { requestWindows, tokenScope } from "../src/rate-limits.ts";
import { bot, chatworkWorld, directRoom, groupRoom, mentionDelivery, outbound, user } from "./harness.ts";

type World = Awaited<ReturnType<typeof chatworkWorld>>;

/** Chatwork's room limit, scaled down in time so a burst drains in seconds. */
const fastRoomLimit = { limit: 10, windowMs: 400 };
const sender = new OutboundSender();
const signal = new AbortController().signal;

const mention = (world: World, text: string, roomId = groupRoom): ChatEvent => {
  const inbound = world.adapter.normalize(mentionDelivery(text, { roomId }), world.workspace, Date.now());
  if (inbound.kind !== "message") throw new Error("expected a message");
  return inbound.event;
};

describe("Chatwork rate limits", () => {
  const worlds: World[] = [];
  const open = async (options: Parameters<typeof chatworkWorld>[0]) => {
    const world = await chatworkWorld(options);
    worlds.push(world);
    return world;
  };
  afterEach(async () => {
    await Promise.all(worlds.splice(0).map((world) => world.close()));
  });

  /** Two instances (two adapters) answering a burst of 50 messages in one room, each send through the sender. */
  const burst = async (limiterOf: () => MemoryRateLimiter) => {
    const limits = { ...chatworkLimits, postsPerRoom: fastRoomLimit };
    const world = await open({ fake: { postsPerRoom: fastRoomLimit }, adapter: { limits }, limiter: limiterOf() });
    const other = new ChatworkAdapter({ apiUrl: world.fake.apiUrl, limiter: limiterOf(), limits });
    const instances = [world.adapter, other];
    const deliveries = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const reply = outbound(mention(world, `question ${i}`), `answer ${i}`);
        return sender.send(instances[i % 2] as ChatworkAdapter, world.workspace, reply, signal);
      }),
    );
    return { world, deliveries };
  };

  it("a burst of 50 sends into one room from two instances sharing the limiter meets zero 429s", async () => {
    const shared = new MemoryRateLimiter();
    const { world, deliveries } = await burst(() => shared);
    expect(deliveries.every((delivery) => delivery.status === "sent")).toBe(true);
    expect(world.fake.posts).toHaveLength(50);
    expect(world.fake.rateLimited).toBe(0);
  });

  it("the same burst with a limiter per instance meets 429s: the limit must be cluster-wide", async () => {
    const { world, deliveries } = await burst(() => new MemoryRateLimiter());
    expect(deliveries.every((delivery) => delivery.status === "sent")).toBe(true);
    expect(world.fake.posts).toHaveLength(50);
    expect(world.fake.rateLimited).toBeGreaterThan(0);
  });

  it("keys windows on a hash of the token, under one hash tag, never on the token itself", () => {
    const windows = requestWindows(chatworkLimits, tokenScope(bot.apiToken), "125733107");
    const tag = `{${tokenScope(bot.apiToken)}}`;
    expect(windows.map((window) => window.key)).toEqual([`chatwork:${tag}:token`, `chatwork:${tag}:room:125733107`]);
    expect(JSON.stringify(windows)).not.toContain(bot.apiToken);
    expect(tokenScope("another token")).not.toBe(tokenScope(bot.apiToken));
  });

  it("two workspaces on one API token share its window; a workspace with its own token does not", async () => {
    const limiter = new MemoryRateLimiter();
    const limits = { ...chatworkLimits, perToken: { limit: 6, windowMs: 60_000 } };
    const first = await open({ limiter, adapter: { limits } }); // connect: GET /me and GET /rooms
    const second = await open({ limiter, adapter: { limits }, workspaceId: "ws-same-token" }); // two more
    await first.adapter.send(outbound(mention(first, "a"), "a"), first.workspace);
    await second.adapter.send(outbound(mention(second, "b"), "b"), second.workspace);
    const third = outbound(mention(first, "c"), "c");
    await expect(first.adapter.send(third, first.workspace)).rejects.toBeInstanceOf(RateLimitedError);
    await expect(second.adapter.send(third, second.workspace)).rejects.toBeInstanceOf(RateLimitedError);

    const credentials = { ...first.workspace.credentials, apiToken: user.apiToken };
    const ownToken = { ...first.workspace, id: "ws-own-token", credentials };
    await expect(first.adapter.send(third, ownToken)).resolves.toMatchObject({ messageId: expect.any(String) });
  });

  it("holds off when Chatwork's headers say the token's budget is spent, before any 429", async () => {
    const world = await open({ fake: { perToken: { limit: 4, windowMs: 60_000 } } }); // connect spent 2
    await world.adapter.send(outbound(mention(world, "1"), "1"), world.workspace);
    await world.adapter.send(outbound(mention(world, "2"), "2"), world.workspace); // answered remaining: 0
    const calls = world.fake.server.calls.length;
    const error = await world.adapter.send(outbound(mention(world, "3"), "3"), world.workspace).catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBeGreaterThan(50_000);
    expect(world.fake.server.calls.length).toBe(calls);
    expect(world.fake.rateLimited).toBe(0);
  });

  it("a 429 caused by another client of the same token: RateLimitedError until Chatwork's reset, nothing posted", async () => {
    const world = await open({ fake: { perToken: { limit: 4, windowMs: 60_000 } } }); // connect spent 2
    for (let i = 0; i < 2; i++) {
      await fetch(`${world.fake.apiUrl}/me`, { headers: { "x-chatworktoken": bot.apiToken } }); // the customer's script
    }
    const error = await world.adapter.send(outbound(mention(world, "late"), "x"), world.workspace).catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBeGreaterThan(50_000);
    expect(world.fake.rateLimited).toBe(1);
    expect(world.fake.posts).toHaveLength(0);
    const calls = world.fake.server.calls.length;
    await expect(world.adapter.send(outbound(mention(world, "again"), "x"), world.workspace)).rejects.toBeInstanceOf(
      RateLimitedError,
    );
    expect(world.fake.server.calls.length).toBe(calls);
  });

  it("a 429 for a full room holds that room only, for the room's window", async () => {
    const world = await open({ fake: { postsPerRoom: { limit: 2, windowMs: 60_000 } } });
    for (const text of ["1", "2"]) await world.adapter.send(outbound(mention(world, text), text), world.workspace);
    const error = await world.adapter.send(outbound(mention(world, "3"), "3"), world.workspace).catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(chatworkLimits.postsPerRoom.windowMs);
    expect(world.fake.rateLimited).toBe(1);
    const calls = world.fake.server.calls.length;
    await expect(world.adapter.send(outbound(mention(world, "4"), "4"), world.workspace)).rejects.toBeInstanceOf(
      RateLimitedError,
    );
    expect(world.fake.server.calls.length).toBe(calls);
    await world.adapter.send(outbound(mention(world, "dm", directRoom), "dm"), world.workspace);
    expect(world.fake.posts.map((post) => post.roomId)).toEqual([groupRoom, groupRoom, directRoom]);
  });
});
