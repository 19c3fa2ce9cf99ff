import { describe, expect, it } from "vitest";
import type { QueuedEvent } from "../src/chat-event.ts";
import { OutcomeUnknownError } from "../src/errors.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { MemoryConversationMemory } from "../src/memory/conversation-memory.ts";
import { OutboundSender } from "../src/outbound-sender.ts";
import type { OutboundReply, PlatformAdapter } from "../src/ports/platform-adapter.ts";
import type { Telemetry } from "../src/ports/telemetry.ts";
import type { Workspace } from "../src/ports/tenant-directory.ts";
import { ReplyLedger } from "../src/reply-ledger.ts";
import { ReplyWorker } from "../src/reply-worker.ts";
import { resolveSettings } from "../src/settings.ts";
import { chatEvent } from "./support.ts";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const telemetry = new Proxy({}, { get: () => () => {} }) as Telemetry;

/**
 * A platform that records what it was sent; its first post lands but the answer is lost (a timeout after sending),
 * and `onUnknown` runs then, as the network would fail mid-request.
 */
function lossyPlatform(onUnknown: () => void) {
  const posts: OutboundReply[] = [];
  const adapter = {
    platform: "slack",
    async send(reply: OutboundReply) {
      posts.push(reply);
      if (posts.length === 1) {
        onUnknown();
        throw new OutcomeUnknownError("timed out after sending");
      }
      return { messageId: `m${posts.length}` };
    },
    async findReply(reply: OutboundReply) {
      const at = posts.findIndex((post) => post.replyKey === reply.replyKey);
      return at < 0 ? undefined : { messageId: `m${at + 1}` };
    },
  } as unknown as PlatformAdapter;
  return { adapter, posts };
}

describe("ReplyWorker", () => {
  it("keeps the sending mark when a lost lease cuts a read-back short, so the next attempt reads back instead of posting again", async () => {
    let now = Date.now();
    const store = new MemoryClaimStore({ now: () => now });
    const leaseMs = 300;
    // The store's clock jumps past the lease while the post's outcome is unknown: the claim lapses under its holder.
    const platform = lossyPlatform(() => {
      now += leaseMs + 1;
    });
    const workspace: Workspace = {
      id: "ws_a",
      tenantId: "tn_a",
      platform: "slack",
      name: "a",
      credentials: {},
      settings: resolveSettings({}, "closed"),
      identity: {},
    };
    const worker = new ReplyWorker({
      directory: { workspace: async () => workspace },
      adapters: new Map([["slack", platform.adapter]]),
      ledger: new ReplyLedger(store, leaseMs),
      sender: new OutboundSender({ rateLimitBudgetMs: 1_000, reconcileAttempts: 1, reconcileDelayMs: 5_000 }),
      agent: { answer: async () => ({ text: "the answer", usage: { inputTokens: 1, outputTokens: 1 } }) },
      memory: new MemoryConversationMemory(),
      telemetry,
      logger: quiet,
    });
    const event: QueuedEvent = chatEvent();
    const job = { id: "event:ws_a:Ev1", data: event, attempt: 1 };

    const started = performance.now();
    await expect(worker.handle(job)).rejects.toBeInstanceOf(OutcomeUnknownError);
    // Cut short by the lease, not by the end of the read-back delay.
    expect(performance.now() - started).toBeLessThan(5_000);

    await worker.handle({ ...job, attempt: 2 });
    expect(platform.posts).toHaveLength(1);
    expect(await new ReplyLedger(store, leaseMs).claim(event, "job-twin")).toEqual({ outcome: "answered" });
  });
});
