import { describe, expect, it } from "vitest";
import { conversationKey } from "../src/keys.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { MemoryConversationMemory } from "../src/memory/conversation-memory.ts";
import { MemoryCache } from "../src/memory/shared-cache.ts";
import { OutboundSender } from "../src/outbound-sender.ts";
import type { AgentRequest } from "../src/ports/agent.ts";
import { ReplyLedger } from "../src/reply-ledger.ts";
import { ReplyWorker } from "../src/reply-worker.ts";
import type { ThreadMessage } from "../src/thread-context.ts";
import { ThreadReader } from "../src/thread-reader.ts";
import { CountingTelemetry, directoryOf, quietLogger, UnitPlatform, workspace } from "./pipeline-support.ts";
import { chatEvent } from "./support.ts";

class ThreadedPlatform extends UnitPlatform {
  reads = 0;
  async threadMessages(): Promise<ThreadMessage[]> {
    this.reads++;
    return [
      { id: "1.0", author: "alice", isBot: false, text: "the printer is out of toner" },
      { id: "2.0", author: "bob", isBot: false, text: "which floor?" },
    ];
  }
}

function setup() {
  const store = new MemoryClaimStore();
  const memory = new MemoryConversationMemory();
  const platform = new ThreadedPlatform();
  const requests: AgentRequest[] = [];
  const worker = new ReplyWorker({
    directory: directoryOf(workspace("ws_a")),
    adapters: new Map([["unit", platform]]),
    ledger: new ReplyLedger(store, 300),
    sender: new OutboundSender(),
    agent: {
      async answer(request) {
        requests.push(request);
        return { text: "on it", usage: { inputTokens: 1, outputTokens: 1 } };
      },
    },
    memory,
    telemetry: new CountingTelemetry(),
    logger: quietLogger,
    threads: new ThreadReader({ cache: new MemoryCache(), logger: quietLogger }),
  });
  return { memory, platform, requests, worker };
}

const eventIn = (replyToId: string) =>
  chatEvent({ platform: "unit", workspaceId: "ws_a", conversation: { id: "C1", threadId: "1.0", replyToId } });

describe("ReplyWorker: thread context", () => {
  it("gives the agent the thread's earlier messages when it is called into a thread it has no memory of", async () => {
    const { platform, requests, worker } = setup();
    await worker.handle({ id: "job-1", data: eventIn("3.0"), attempt: 1 });
    expect(platform.reads).toBe(1);
    expect(requests[0]?.thread).toMatchObject({ status: "read", messages: [{ author: "alice" }, { author: "bob" }] });
  });

  it("reads nothing once the thread is in its memory", async () => {
    const { memory, platform, requests, worker } = setup();
    const event = eventIn("4.0");
    await memory.append(conversationKey(event), [{ role: "user", text: "earlier" }], 20, 60_000);
    await worker.handle({ id: "job-2", data: event, attempt: 1 });
    expect(platform.reads).toBe(0);
    expect(requests[0]?.thread).toBeUndefined();
    expect(requests[0]?.history).toEqual([{ role: "user", text: "earlier" }]);
  });

  it("asks its memory nothing for a message that starts its thread, and remembers the exchange for the replies", async () => {
    const { memory, platform, requests, worker } = setup();
    const root = eventIn("1.0");
    const recent = memory.recent.bind(memory);
    let reads = 0;
    memory.recent = (...args) => {
      reads++;
      return recent(...args);
    };
    await worker.handle({ id: "job-3", data: root, attempt: 1 });
    expect(reads).toBe(0);
    expect(platform.reads).toBe(0);
    expect(requests[0]?.history).toEqual([]);
    await worker.handle({ id: "job-4", data: eventIn("5.0"), attempt: 1 });
    expect(reads).toBe(1);
    expect(requests[1]?.history).toEqual([
      { role: "user", text: root.text },
      { role: "assistant", text: "on it" },
    ]);
  });
});
