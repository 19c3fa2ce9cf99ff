import { describe, expect, it } from "vitest";
import { OutcomeUnknownError, PermanentSendError, RateLimitedError, StreamEndedError } from "../src/errors.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { MemoryConversationMemory } from "../src/memory/conversation-memory.ts";
import { OutboundSender } from "../src/outbound-sender.ts";
import { ReplyLedger } from "../src/reply-ledger.ts";
import { ReplyWorker } from "../src/reply-worker.ts";
import { CountingTelemetry, directoryOf, quietLogger, workspace } from "./pipeline-support.ts";
import { StreamingUnitPlatform, streamingAgent } from "./stream-support.ts";
import { chatEvent } from "./support.ts";

const leaseMs = 300;

class Overloaded extends Error {}
const answer = (call: number) => `the whole answer number ${call}, written word by word until it ends.`;

function instance(store: MemoryClaimStore, platform: StreamingUnitPlatform, settings = {}) {
  const agent = streamingAgent(answer);
  const ledger = new ReplyLedger(store, leaseMs);
  const worker = new ReplyWorker({
    directory: directoryOf(workspace("ws_a", settings)),
    adapters: new Map([["unit", platform]]),
    ledger,
    sender: new OutboundSender({ rateLimitBudgetMs: 1_000, reconcileAttempts: 1, reconcileDelayMs: 10 }),
    agent,
    memory: new MemoryConversationMemory(),
    telemetry: new CountingTelemetry(),
    logger: quietLogger,
  });
  return { worker, agent, ledger };
}

/** The agent's first call writes a few words and then fails, `afterMs` later (0: at once); later calls answer. */
function failFirstAnswer(agent: ReturnType<typeof streamingAgent>, afterMs: number): void {
  const answerOnce = agent.answer;
  agent.answer = async (request) => {
    if (agent.calls > 0) return answerOnce(request);
    agent.calls++;
    request.onText?.("a first answer that ");
    if (afterMs > 0) await new Promise((resolve) => setTimeout(resolve, afterMs));
    throw new Overloaded("overloaded");
  };
}

const newEvent = () => chatEvent({ platform: "unit", workspaceId: "ws_a" });
const job = (event: ReturnType<typeof newEvent>, attempt = 1) => ({ id: "job-1", data: event, attempt });

describe("ReplyWorker: streamed answers", () => {
  it("streams the answer into one message in chunks, its id recorded before the second write", async () => {
    const store = new MemoryClaimStore();
    const platform = new StreamingUnitPlatform();
    const { worker, ledger } = instance(store, platform);
    const event = newEvent();
    const recordedAtWrite: (string | undefined)[] = [];
    platform.onWrite = async (method) => {
      if (method !== "start") recordedAtWrite.push(await ledger.streamedMessage(event));
    };

    await worker.handle(job(event));
    expect(platform.messages).toEqual([{ id: "s1", replyKey: expect.any(String), text: answer(1), streaming: false }]);
    expect(platform.posts).toEqual([]);
    expect(platform.writes[0]?.method).toBe("start");
    expect(platform.writes.at(-1)?.method).toBe("stop");
    expect(platform.writes.every((w) => w.text.length <= platform.streams.maxChunkChars)).toBe(true);
    expect(recordedAtWrite.length).toBeGreaterThan(1);
    expect(recordedAtWrite.every((id) => id === "s1")).toBe(true);
  });

  it("a takeover after the holder froze mid-stream completes that same message, never a second", async () => {
    let now = Date.now();
    const store = new MemoryClaimStore({ now: () => now });
    const platform = new StreamingUnitPlatform();
    const event = newEvent();
    const dying = instance(store, platform);
    dying.agent.stallAfterWords = 4;
    const died = dying.worker.handle(job(event, 1)).catch((error: unknown) => error);
    await expect.poll(() => platform.messages[0]?.text.length ?? 0).toBeGreaterThan(0);
    now += leaseMs + 1;

    const taker = instance(store, platform);
    await taker.worker.handle(job(event, 2));
    expect(platform.messages).toHaveLength(1);
    expect(platform.messages[0]).toMatchObject({ id: "s1", text: answer(1), streaming: false });
    expect(platform.writes.at(-1)).toMatchObject({ method: "complete", messageId: "s1" });
    expect(platform.writes.filter((w) => w.method === "start")).toHaveLength(1);
    expect(platform.posts).toEqual([]);
    expect(await died).toBeInstanceOf(Error);
  });

  it("a holder that died between its stream's end and its commit: the takeover completes it again, asks no LLM", async () => {
    let now = Date.now();
    const store = new MemoryClaimStore({ now: () => now });
    const platform = new StreamingUnitPlatform();
    const event = newEvent();
    const dying = instance(store, platform);
    // It dies once its stop has landed: its commit never comes.
    dying.ledger.commit = () => new Promise<boolean>(() => {});
    void dying.worker.handle(job(event, 1));
    await expect.poll(() => platform.messages[0]?.streaming).toBe(false);
    now += leaseMs + 1;

    const taker = instance(store, platform);
    await taker.worker.handle(job(event, 2));
    // The same message once more, through `complete` (which every platform's streams must take again safely).
    expect(platform.writes.at(-1)).toMatchObject({ method: "complete", messageId: "s1", text: answer(1) });
    expect(platform.messages).toEqual([expect.objectContaining({ id: "s1", text: answer(1), streaming: false })]);
    expect(platform.posts).toEqual([]);
    expect(taker.agent.calls).toBe(0);
    expect(await taker.ledger.claim(event, "job-2")).toEqual({ outcome: "answered" });
  });

  it("a takeover finds a stream its dead opener never recorded, and completes it instead of posting", async () => {
    let now = Date.now();
    const store = new MemoryClaimStore({ now: () => now });
    const platform = new StreamingUnitPlatform();
    const event = newEvent();
    const dying = instance(store, platform);
    // The opener dies between Slack's answer to the first write and the ledger's record of it.
    dying.ledger.recordStream = () => new Promise(() => {});
    // Left hanging; once the taker holds the claim, its lease is found lost and it rejects, which nobody reads.
    dying.worker.handle(job(event, 1)).catch(() => {});
    await expect.poll(() => platform.messages.length).toBe(1);
    now += leaseMs + 1;

    const taker = instance(store, platform);
    await taker.worker.handle(job(event, 2));
    expect(platform.messages).toHaveLength(1);
    expect(platform.messages[0]).toMatchObject({ text: answer(1), streaming: false });
    expect(platform.posts).toEqual([]);
    expect(await taker.ledger.streamedMessage(event)).toBe("s1");
  });

  it("where an unfinished stream lapses (no findOpened), a takeover after an unrecorded opening streams anew", async () => {
    let now = Date.now();
    const store = new MemoryClaimStore({ now: () => now });
    const platform = new StreamingUnitPlatform();
    platform.streams.findOpened = undefined;
    const event = newEvent();
    const dying = instance(store, platform);
    // It dies in that window and mid-answer: nothing of its answer is journaled.
    dying.ledger.recordStream = () => new Promise(() => {});
    dying.agent.stallAfterWords = 3;
    // Left hanging; once the taker holds the claim, its lease is found lost and it rejects, which nobody reads.
    dying.worker.handle(job(event, 1)).catch(() => {});
    await expect.poll(() => platform.messages.length).toBe(1);
    now += leaseMs + 1;

    const taker = instance(store, platform);
    await taker.worker.handle(job(event, 2));
    expect(platform.posts).toEqual([]);
    expect(platform.messages.filter((m) => !m.streaming)).toMatchObject([{ id: "s2", text: answer(1) }]);
    expect(await taker.ledger.streamedMessage(event)).toBe("s2");
  });

  it("a retry after the LLM failed mid-stream asks it again and completes the message it opened", async () => {
    const store = new MemoryClaimStore();
    const platform = new StreamingUnitPlatform();
    const event = newEvent();
    const { worker, agent } = instance(store, platform);
    failFirstAnswer(agent, 5);
    await expect(worker.handle(job(event, 1))).rejects.toBeInstanceOf(Overloaded);
    await worker.handle(job(event, 2));
    expect(platform.messages).toHaveLength(1);
    expect(platform.messages[0]).toMatchObject({ text: answer(2), streaming: false });
  });

  it("a stream that expires mid-answer is completed by an update with the whole answer", async () => {
    const store = new MemoryClaimStore();
    const platform = new StreamingUnitPlatform();
    const { worker } = instance(store, platform);
    platform.onWrite = (method) => {
      if (method === "append") platform.expireStreams();
    };
    await worker.handle(job(newEvent()));
    expect(platform.messages).toHaveLength(1);
    expect(platform.messages[0]).toMatchObject({ text: answer(1), streaming: false });
    expect(platform.writes.filter((w) => w.method === "complete")).toHaveLength(1);
  });

  it("a write refused mid-answer ends the streaming; the message is completed by an update", async () => {
    const store = new MemoryClaimStore();
    const platform = new StreamingUnitPlatform();
    platform.writeFailures.append = [new PermanentSendError("refused")];
    const { worker } = instance(store, platform);
    await worker.handle(job(newEvent()));
    expect(platform.messages).toHaveLength(1);
    expect(platform.messages[0]).toMatchObject({ text: answer(1), streaming: false });
    expect(platform.writes.filter((w) => w.method === "append")).toHaveLength(1);
  });

  it("a 429 on an append posts nothing: its text waits for the next write, and the stream carries on", async () => {
    const store = new MemoryClaimStore();
    const platform = new StreamingUnitPlatform();
    platform.writeFailures.append = [new RateLimitedError(5), new RateLimitedError(5)];
    const { worker } = instance(store, platform);
    await worker.handle(job(newEvent()));
    expect(platform.messages[0]).toMatchObject({ text: answer(1), streaming: false });
    expect(platform.writes.filter((w) => w.method === "complete")).toEqual([]);
    expect(platform.writeFailures.append).toEqual([]);
  });

  it("an expiry at the stop is completed by an update too", async () => {
    const store = new MemoryClaimStore();
    const platform = new StreamingUnitPlatform();
    platform.writeFailures.stop = [new StreamEndedError("message_not_in_streaming_state")];
    const { worker } = instance(store, platform);
    await worker.handle(job(newEvent()));
    expect(platform.messages[0]).toMatchObject({ text: answer(1), streaming: false });
    expect(platform.writes.at(-1)?.method).toBe("complete");
  });

  it("an opening that fails posts the answer once instead", async () => {
    const store = new MemoryClaimStore();
    const platform = new StreamingUnitPlatform();
    platform.writeFailures.start = [new PermanentSendError("streams refused here")];
    const { worker, agent } = instance(store, platform);
    await worker.handle(job(newEvent()));
    expect(platform.messages).toEqual([]);
    expect(platform.posts.map((p) => p.text)).toEqual([answer(1)]);
    expect(agent.calls).toBe(1);
  });

  it("an opening whose outcome is unknown posts nothing beside it: the retry finds that message and completes it", async () => {
    const store = new MemoryClaimStore();
    const platform = new StreamingUnitPlatform();
    const { start } = platform.streams;
    // The platform opens the message, but its answer is lost on the way back.
    platform.streams.start = async (write, ws) => {
      platform.streams.start = start;
      await start(write, ws);
      throw new OutcomeUnknownError("no answer to the opening");
    };
    const { worker } = instance(store, platform);
    const event = newEvent();
    await expect(worker.handle(job(event, 1))).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(platform.posts).toEqual([]);
    await worker.handle(job(event, 2));
    expect(platform.posts).toEqual([]);
    expect(platform.messages).toEqual([expect.objectContaining({ id: "s1", text: answer(1), streaming: false })]);
  });

  it("an attempt that fails while its opening is in flight leaves the message to its retry, never a second", async () => {
    const store = new MemoryClaimStore();
    const platform = new StreamingUnitPlatform();
    const event = newEvent();
    const { worker, agent } = instance(store, platform);
    failFirstAnswer(agent, 0);
    // The opening is slow: the attempt has failed before the platform answers it.
    platform.onWrite = (method) => (method === "start" ? new Promise((resolve) => setTimeout(resolve, 30)) : undefined);
    await expect(worker.handle(job(event, 1))).rejects.toBeInstanceOf(Overloaded);
    platform.onWrite = () => {};
    await worker.handle(job(event, 2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(platform.posts).toEqual([]);
    expect(platform.messages).toEqual([expect.objectContaining({ id: "s1", text: answer(2), streaming: false })]);
  });

  it("with streaming turned off the answer is posted once", async () => {
    const store = new MemoryClaimStore();
    const platform = new StreamingUnitPlatform();
    const { worker } = instance(store, platform, { streaming: false });
    await worker.handle(job(newEvent()));
    expect(platform.writes).toEqual([]);
    expect(platform.posts.map((p) => p.text)).toEqual([answer(1)]);
  });
});
