import { describe, expect, it, vi } from "vitest";
import { LeaseLostError, StoreUnavailableError } from "../src/errors.ts";
import { replyKey } from "../src/keys.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { MemoryConversationMemory } from "../src/memory/conversation-memory.ts";
import { OutboundSender } from "../src/outbound-sender.ts";
import type { Agent } from "../src/ports/agent.ts";
import type { ClaimStore, JournalEntry } from "../src/ports/claim-store.ts";
import { ReplyLedger } from "../src/reply-ledger.ts";
import { ReplyWorker } from "../src/reply-worker.ts";
import { CountingTelemetry, directoryOf, quietLogger, UnitPlatform, workspace } from "./pipeline-support.ts";
import { chatEvent } from "./support.ts";

const leaseMs = 90;

/** The in-memory store, except that its next `failCommits` commits find it unreachable. */
class CommitsFailing implements ClaimStore {
  failCommits = 0;
  constructor(readonly inner: MemoryClaimStore) {}
  claim(key: string, owner: string, leaseMs: number) {
    return this.inner.claim(key, owner, leaseMs);
  }
  extend(key: string, token: string, leaseMs: number) {
    return this.inner.extend(key, token, leaseMs);
  }
  settle(key: string, value: string, ttlMs: number) {
    return this.inner.settle(key, value, ttlMs);
  }
  release(key: string, token: string) {
    return this.inner.release(key, token);
  }
  journal(key: string, value: string, ttlMs: number) {
    return this.inner.journal(key, value, ttlMs);
  }
  journaled(key: string) {
    return this.inner.journaled(key);
  }
  journalAndClaim(entry: JournalEntry, key: string, owner: string, leaseMs: number) {
    return this.inner.journalAndClaim(entry, key, owner, leaseMs);
  }
  commit(key: string, token: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.failCommits-- > 0) return Promise.reject(new StoreUnavailableError("store down"));
    return this.inner.commit(key, token, value, ttlMs);
  }
}

const echoAgent: Agent = {
  answer: async ({ event }) => ({ text: `answer to ${event.text}`, usage: { inputTokens: 1, outputTokens: 1 } }),
};

function setUp(agent: Agent = echoAgent) {
  let now = Date.now();
  const store = new MemoryClaimStore({ now: () => now });
  const claims = new CommitsFailing(store);
  const platform = new UnitPlatform();
  const telemetry = new CountingTelemetry();
  const worker = new ReplyWorker({
    directory: directoryOf(workspace("ws_a")),
    adapters: new Map([["unit", platform]]),
    ledger: new ReplyLedger(claims, leaseMs),
    sender: new OutboundSender({ rateLimitBudgetMs: 1_000, reconcileAttempts: 2, reconcileDelayMs: 10 }),
    agent,
    memory: new MemoryConversationMemory(),
    telemetry,
    logger: quietLogger,
  });
  const advance = (ms: number) => {
    now += ms;
  };
  return { worker, platform, telemetry, claims, store, advance };
}

const job = (event = chatEvent({ platform: "unit" }), id = `job-${event.eventId}`, attempt = 1) => ({
  id,
  data: event,
  attempt,
});

describe("ReplyWorker", () => {
  it("answers once, and a twin job of the same message is a duplicate", async () => {
    const { worker, platform, telemetry } = setUp();
    const first = job();
    await worker.handle(first);
    await worker.handle(job({ ...first.data, eventId: "Ev-twin" }));
    expect(platform.posts.map((post) => post.text)).toEqual(["answer to hello"]);
    expect(telemetry.counts).toMatchObject({ replySent: 1, replyDuplicate: 1 });
  });

  it("never fails a job whose reply was posted but could not be committed, and its retry does not post again", async () => {
    const { worker, platform, telemetry, claims, advance } = setUp();
    claims.failCommits = 3;
    const first = job();
    await expect(worker.handle(first)).resolves.toBeUndefined();
    expect(platform.posts).toHaveLength(1);
    expect(telemetry.failureStages).toEqual(["commit"]);
    // The queue runs the job again (a stalled lock, say) once the reply claim's lease has lapsed: the sending mark
    // left behind sends it to the platform first, which has the reply.
    advance(leaseMs + 1);
    await worker.handle({ ...first, attempt: 2 });
    expect(platform.posts).toHaveLength(1);
    expect(telemetry.counts.replySent).toBe(2);
  });

  it("resumes after a sending mark: reads the platform back, posts only what is not there", async () => {
    const { worker, platform, store } = setUp();
    const posted = job();
    const notPosted = job();
    for (const { data } of [posted, notPosted])
      await store.claim(`sending:${data.workspaceId}:${data.messageKey}`, "died", 60_000);
    await platform.send({ event: posted.data, text: "answer to hello", replyKey: replyKey(posted.data) });
    await worker.handle(posted);
    await worker.handle(notPosted);
    expect(platform.posts.map((post) => post.replyKey)).toEqual([replyKey(posted.data), replyKey(notPosted.data)]);
    expect((await store.claim(replyKey(posted.data), "later", 60_000)).claimed).toBe(false);
  });

  it("stops without posting when its lease is lost mid-answer, and leaves the new holder's claim alone", async () => {
    let taken = false;
    const setup = setUp({
      answer: async ({ event, signal }) => {
        // Another worker takes the reply over while the LLM is slow: the lease lapsed and was claimed again.
        setup.advance(leaseMs + 1);
        taken = (await setup.store.claim(replyKey(event), "job-other", 60_000)).claimed;
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        return { text: "too late", usage: { inputTokens: 1, outputTokens: 1 } };
      },
    });
    const lost = job();
    await expect(setup.worker.handle(lost)).rejects.toBeInstanceOf(LeaseLostError);
    expect(taken).toBe(true);
    expect(setup.platform.posts).toHaveLength(0);
    expect(await setup.store.claim(replyKey(lost.data), "third", 60_000)).toEqual({
      claimed: false,
      record: { state: "in_progress", owner: "job-other" },
    });
  });

  it("posts only once the working indicator is up, so it never lands under the answer", async () => {
    const { worker, platform } = setUp();
    const seen: string[] = [];
    const withIndicator = Object.assign(platform, {
      working: {
        show: async () => {
          await new Promise((resolve) => setTimeout(resolve, 30));
          seen.push("shown");
        },
        clear: async () => {
          seen.push("cleared");
        },
      },
    });
    const send = withIndicator.send.bind(withIndicator);
    withIndicator.send = async (reply) => {
      seen.push("posted");
      return send(reply);
    };
    await worker.handle(job());
    await vi.waitFor(() => expect(seen).toEqual(["shown", "posted", "cleared"]));
  });
});
