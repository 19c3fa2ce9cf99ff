import { describe, expect, it } from "vitest";
import { replyKey } from "../src/keys.ts";
import type { HeldLease } from "../src/lease.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { OutboundSender } from "../src/outbound-sender.ts";
import { ReplyLedger } from "../src/reply-ledger.ts";
import { ReplySend } from "../src/reply-send.ts";
import { quietLogger, workspace } from "./pipeline-support.ts";
import { StreamingUnitPlatform } from "./stream-support.ts";
import { chatEvent } from "./support.ts";

/*
 * ReplySend on its own, over the in-memory claim store, the real ledger and sender, and the unit platform with
 * streams: which of its three ways an attempt sends, and what each leaves at the platform and in the ledger.
 */

const ttlMs = 60_000;
const answer = "the whole answer, streamed in several writes.";

function setUp(settings = {}) {
  const store = new MemoryClaimStore();
  const ledger = new ReplyLedger(store, 1_000);
  const platform = new StreamingUnitPlatform();
  const event = chatEvent({ platform: "unit", workspaceId: "ws_a" });
  const deps = {
    ledger,
    sender: new OutboundSender({ rateLimitBudgetMs: 1_000, reconcileAttempts: 1, reconcileDelayMs: 10 }),
    logger: quietLogger,
  };
  const begin = (jobId: string, journaled?: string) =>
    ReplySend.begin(deps, {
      event,
      jobId,
      workspace: workspace("ws_a", settings),
      adapter: platform,
      ttlMs,
      journaled,
    });
  return { ledger, platform, event, begin };
}

/** A lease that holds. */
const live = (): HeldLease => ({ signal: new AbortController().signal, assertHeld() {}, stop() {} });

/** Feeds `text` as the LLM would, a word at a time, yielding between words so that writes go out. */
async function write(onText: ((delta: string) => void) | undefined, text: string): Promise<void> {
  for (const word of text.split(/(?<= )/)) {
    onText?.(word);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe("ReplySend", () => {
  it("where the conversation streams: the mark is taken first, the text streams into one message, finished by stop", async () => {
    const { ledger, platform, event, begin } = setUp();
    const send = await begin("job-1");
    expect(send.sending?.first).toBe(true);
    expect(send.onText).toBeDefined();
    await write(send.onText, answer);

    expect(await send.deliver(answer, live())).toEqual({ status: "sent", messageId: "s1" });
    expect(platform.messages).toEqual([expect.objectContaining({ id: "s1", text: answer, streaming: false })]);
    expect(platform.writes.at(-1)?.method).toBe("stop");
    expect(platform.posts).toEqual([]);
    expect(await ledger.streamedMessage(event)).toBe("s1");
  });

  it("a stream an earlier attempt recorded is completed with the whole answer; nothing streams, no mark is taken", async () => {
    const { ledger, platform, event, begin } = setUp();
    const earlier = await begin("job-1");
    await write(earlier.onText, "the whole ");
    await earlier.abandon();
    await expect.poll(() => ledger.streamedMessage(event)).toBe("s1");

    const send = await begin("job-1");
    expect(send.onText).toBeUndefined();
    expect(send.sending).toBeUndefined();
    expect(await send.deliver(answer, live())).toEqual({ status: "sent", messageId: "s1" });
    expect(platform.messages).toEqual([expect.objectContaining({ id: "s1", text: answer, streaming: false })]);
    expect(platform.writes.filter((w) => w.method === "start")).toHaveLength(1);
    expect(platform.writes.at(-1)).toMatchObject({ method: "complete", messageId: "s1" });
    expect(platform.posts).toEqual([]);
  });

  it("a stream its opener never recorded (its mark still held) is found on the platform, recorded and completed", async () => {
    const { ledger, platform, event, begin } = setUp();
    await ledger.beginSend(event, "job-1", ttlMs);
    // Its opener: the first write landed, and it died before recording the message's id.
    const opening = { event, text: "the whole ", replyKey: replyKey(event) };
    const { messageId } = await platform.streams.start(opening, workspace("ws_a"));

    const send = await begin("job-1");
    expect(send.sending).toEqual({ first: false });
    expect(send.onText).toBeUndefined();
    expect(await ledger.streamedMessage(event)).toBe(messageId);
    await send.deliver(answer, live());
    expect(platform.messages).toEqual([expect.objectContaining({ id: messageId, text: answer, streaming: false })]);
    expect(platform.posts).toEqual([]);
  });

  it("a journaled answer is not streamed as if written anew: it is posted once", async () => {
    const { platform, begin } = setUp();
    const send = await begin("job-1", answer);
    expect(send.onText).toBeUndefined();
    expect(await send.deliver(answer, live())).toEqual({ status: "sent", messageId: "m1" });
    expect(platform.posts.map((p) => p.text)).toEqual([answer]);
    expect(platform.messages).toEqual([]);
  });

  it("with streaming off the mark is taken only at the send, and the answer posted once", async () => {
    const { platform, begin } = setUp({ streaming: false });
    const send = await begin("job-1");
    expect(send.sending).toBeUndefined();
    expect(send.onText).toBeUndefined();
    await send.deliver(answer, live());
    expect(send.sending?.first).toBe(true);
    expect(platform.posts.map((p) => p.text)).toEqual([answer]);
    expect(platform.writes).toEqual([]);
  });

  it("a lease lost while the agent wrote stops a send of its own before anything is posted or finished", async () => {
    const { platform, begin } = setUp({ streaming: false });
    const send = await begin("job-1");
    const lost = new AbortController();
    lost.abort(new Error("lease lost"));
    const lease = { signal: lost.signal, assertHeld: () => lost.signal.throwIfAborted(), stop() {} };
    await expect(send.deliver(answer, lease)).rejects.toThrow("lease lost");
    expect(send.sending).toBeUndefined();
    expect(platform.posts).toEqual([]);
  });
});
