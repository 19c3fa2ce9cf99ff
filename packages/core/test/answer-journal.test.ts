import { describe, expect, it } from "vitest";
import { PermanentSendError, SendRejectedError } from "../src/errors.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { MemoryConversationMemory } from "../src/memory/conversation-memory.ts";
import { OutboundSender } from "../src/outbound-sender.ts";
import type { OutboundReply, SentReply } from "../src/ports/platform-adapter.ts";
import { ReplyLedger } from "../src/reply-ledger.ts";
import { ReplyWorker } from "../src/reply-worker.ts";
import { CountingTelemetry, directoryOf, quietLogger, UnitPlatform, workspace } from "./pipeline-support.ts";
import { chatEvent } from "./support.ts";

const leaseMs = 300;

/** An agent that counts its calls and answers each one differently, so a second call would show in the text. */
function countingAgent() {
  const agent = {
    calls: 0,
    async answer() {
      agent.calls++;
      return { text: `answer #${agent.calls}`, usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
  return agent;
}

/** One instance's worker; instances share the store (the reply ledger) and the platform. */
function instance(store: MemoryClaimStore, platform: UnitPlatform) {
  const agent = countingAgent();
  const worker = new ReplyWorker({
    directory: directoryOf(workspace("ws_a")),
    adapters: new Map([["unit", platform]]),
    ledger: new ReplyLedger(store, leaseMs),
    sender: new OutboundSender({ rateLimitBudgetMs: 1_000, reconcileAttempts: 1, reconcileDelayMs: 10 }),
    agent,
    memory: new MemoryConversationMemory(),
    telemetry: new CountingTelemetry(),
    logger: quietLogger,
  });
  return { worker, agent };
}

const job = (attempt = 1, id = "job-1") => ({ id, data: event, attempt });
const event = chatEvent({ platform: "unit", workspaceId: "ws_a" });

describe("ReplyWorker: the answer is computed once", () => {
  it("a retry after a failed send posts the journaled answer without asking the agent again", async () => {
    const store = new MemoryClaimStore();
    const platform = new UnitPlatform();
    platform.sendFailures.push(new SendRejectedError("could not connect"));
    const { worker, agent } = instance(store, platform);

    await expect(worker.handle(job(1))).rejects.toBeInstanceOf(SendRejectedError);
    await worker.handle(job(2));
    expect(agent.calls).toBe(1);
    expect(platform.posts.map((post) => post.text)).toEqual(["answer #1"]);
  });

  it("a takeover after the holder died mid-send posts the answer the dead holder journaled, with no agent call", async () => {
    let now = Date.now();
    const store = new MemoryClaimStore({ now: () => now });
    const platform = new UnitPlatform();
    const send = platform.send.bind(platform);
    let sends = 0;
    // The first holder's post never returns (its process froze, then died); the store's clock runs past its lease.
    platform.send = (reply: OutboundReply): Promise<SentReply> => {
      if (++sends > 1) return send(reply);
      now += leaseMs + 1;
      return new Promise(() => {});
    };
    const dying = instance(store, platform);
    void dying.worker.handle(job(1));
    await expect.poll(() => sends).toBe(1);
    expect(dying.agent.calls).toBe(1);

    // Another instance takes the job over (the Redis queue's takeover of a lapsed lock, or the PostgreSQL queue's).
    const taker = instance(store, platform);
    await taker.worker.handle(job(2));
    expect(taker.agent.calls).toBe(0);
    expect(platform.posts.map((post) => post.text)).toEqual(["answer #1"]);
  });

  it("a permanent refusal is committed as refused: neither a retry nor a twin asks the agent or posts", async () => {
    const store = new MemoryClaimStore();
    const platform = new UnitPlatform();
    platform.sendFailures.push(new PermanentSendError("Slack refused chat.postMessage: not_in_channel"));
    const { worker, agent } = instance(store, platform);

    await expect(worker.handle(job(1))).rejects.toBeInstanceOf(PermanentSendError);
    await worker.handle(job(2));
    await worker.handle(job(1, "job-twin"));
    expect(agent.calls).toBe(1);
    expect(platform.posts).toEqual([]);
    expect(await new ReplyLedger(store, leaseMs).claim(event, "job-third")).toEqual({ outcome: "answered" });
  });
});
