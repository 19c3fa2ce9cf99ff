import { describe, expect, it } from "vitest";
import type { QueuedEvent } from "../src/chat-event.ts";
import { RateLimitedError } from "../src/errors.ts";
import { MemoryCache } from "../src/memory/shared-cache.ts";
import { estimateTokens, type ThreadMessage } from "../src/thread-context.ts";
import { ThreadReader } from "../src/thread-reader.ts";
import { quietLogger, UnitPlatform, workspace } from "./pipeline-support.ts";
import { chatEvent } from "./support.ts";

/** The unit platform with a thread to read: counts its reads, and throws what it is told to. */
class ThreadedPlatform extends UnitPlatform {
  reads = 0;
  readonly readFailures: Error[] = [];
  constructor(readonly thread: ThreadMessage[]) {
    super();
  }
  async threadMessages(_event: QueuedEvent, _ws: unknown, limit: number): Promise<ThreadMessage[]> {
    this.reads++;
    const failure = this.readFailures.shift();
    if (failure) throw failure;
    return this.thread.slice(-limit);
  }
}

const message = (id: string, text: string, author = "U1"): ThreadMessage => ({ id, author, isBot: false, text });
const inThread = (replyToId: string, threadId = "100.0") =>
  chatEvent({ platform: "unit", conversation: { id: "C1", threadId, replyToId } });
const reader = (options: Partial<ConstructorParameters<typeof ThreadReader>[0]> = {}) =>
  new ThreadReader({ cache: new MemoryCache(), logger: quietLogger, ...options });

describe("ThreadReader", () => {
  const thread = [message("100.0", "the root"), message("101.0", "a reply"), message("102.0", "@bot what now?")];

  it("reads the messages before the one being answered, oldest first", async () => {
    const platform = new ThreadedPlatform([...thread, message("103.0", "written after")]);
    const context = await reader().read(inThread("102.0"), workspace("ws_a"), platform);
    expect(context).toEqual({ status: "read", messages: thread.slice(0, 2), omitted: 0 });
  });

  it("reads nothing for a message that starts its thread, or from a platform that cannot be read", async () => {
    const platform = new ThreadedPlatform(thread);
    expect(await reader().read(inThread("100.0", "100.0"), workspace("ws_a"), platform)).toBeUndefined();
    expect(platform.reads).toBe(0);
    expect(await reader().read(inThread("102.0"), workspace("ws_a"), new UnitPlatform())).toBeUndefined();
  });

  it("keeps the newest messages that fit the token bound, and says how many older ones it left out", async () => {
    const long = Array.from({ length: 30 }, (_, i) => message(`${200 + i}.0`, "word ".repeat(40)));
    const platform = new ThreadedPlatform([...long, message("300.0", "@bot sum it up")]);
    const context = await reader({ maxTokens: 200 }).read(inThread("300.0"), workspace("ws_a"), platform);
    if (context?.status !== "read") throw new Error(`expected a read, got ${JSON.stringify(context)}`);
    expect(context.messages.at(-1)?.id).toBe("229.0");
    expect(context.omitted).toBe(30 - context.messages.length);
    const tokens = context.messages.reduce((sum, m) => sum + estimateTokens(`${m.author}: ${m.text}`) + 4, 0);
    expect(tokens).toBeLessThanOrEqual(200);
    expect(context.messages.length).toBeGreaterThan(0);
  });

  it("asks the platform once for a thread within the cache's lifetime, whoever asks", async () => {
    const platform = new ThreadedPlatform(thread);
    const cache = new MemoryCache();
    await reader({ cache }).read(inThread("102.0"), workspace("ws_a"), platform);
    const again = await reader({ cache }).read(inThread("102.0"), workspace("ws_a"), platform);
    expect(platform.reads).toBe(1);
    expect(again?.status).toBe("read");
  });

  it("answers without the thread when the platform says 429, and holds off every reader until its Retry-After", async () => {
    const platform = new ThreadedPlatform(thread);
    platform.readFailures.push(new RateLimitedError(60_000));
    const cache = new MemoryCache();
    const first = await reader({ cache }).read(inThread("102.0"), workspace("ws_a"), platform);
    expect(first).toEqual({ status: "unavailable", reason: "the platform's rate limit" });
    const second = await reader({ cache }).read(inThread("101.0", "100.0"), workspace("ws_a"), platform);
    expect(second?.status).toBe("unavailable");
    expect(platform.reads).toBe(1);
  });

  it("uses what the delivery carried of its thread without asking the platform", async () => {
    const platform = new ThreadedPlatform(thread);
    const quoted = { ...inThread("102.0"), context: [message("99.0", "the quoted message", "Alice")] };
    const context = await reader().read(quoted, workspace("ws_a"), platform);
    expect(context).toEqual({ status: "read", messages: quoted.context, omitted: 0 });
    expect(platform.reads).toBe(0);
    const carried = await reader().read(quoted, workspace("ws_a"), new UnitPlatform());
    expect(carried?.status).toBe("read");
  });

  it("answers without the thread when the platform cannot be read", async () => {
    const platform = new ThreadedPlatform(thread);
    platform.readFailures.push(new Error("connection reset"));
    const context = await reader().read(inThread("102.0"), workspace("ws_a"), platform);
    expect(context).toEqual({ status: "unavailable", reason: "the platform could not be read" });
  });
});

describe("estimateTokens", () => {
  it("counts Latin text near four characters a token and Japanese a token a character", () => {
    expect(estimateTokens("abcdefgh")).toBe(2);
    expect(estimateTokens("こんにちは")).toBe(5);
  });
});
