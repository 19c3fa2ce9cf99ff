import { describe, expect, it } from "vitest";
import { type Budgets, budgetReplies } from "../src/budget.ts";
import { BudgetGuard } from "../src/budget-guard.ts";
import { SendRejectedError } from "../src/errors.ts";
import { MemoryClaimStore } from "../src/memory/claim-store.ts";
import { MemoryConversationMemory } from "../src/memory/conversation-memory.ts";
import { MemoryRateLimiter } from "../src/memory/rate-limiter.ts";
import { MemoryUsageMeter } from "../src/memory/usage-meter.ts";
import { OutboundSender } from "../src/outbound-sender.ts";
import type { Workspace } from "../src/ports/tenant-directory.ts";
import { ReplyLedger } from "../src/reply-ledger.ts";
import { ReplyWorker } from "../src/reply-worker.ts";
import { CountingTelemetry, directoryOf, quietLogger, UnitPlatform, workspace } from "./pipeline-support.ts";
import { chatEvent } from "./support.ts";

function countingAgent() {
  const agent = {
    calls: 0,
    async answer() {
      agent.calls++;
      return { text: `answer #${agent.calls}`, usage: { inputTokens: 40, outputTokens: 10 } };
    },
  };
  return agent;
}

const budgeted = (id: string, tenantId: string, budgets: Budgets): Workspace => ({
  ...workspace(id),
  tenantId,
  budgets,
});

/** Workers of two tenants sharing one store, one budget guard's counters and one platform. */
function deployment(...workspaces: Workspace[]) {
  const store = new MemoryClaimStore();
  const platform = new UnitPlatform();
  const agent = countingAgent();
  const telemetry = new CountingTelemetry();
  const worker = new ReplyWorker({
    directory: directoryOf(...workspaces),
    adapters: new Map([["unit", platform]]),
    ledger: new ReplyLedger(store, 300),
    sender: new OutboundSender({ rateLimitBudgetMs: 1_000, reconcileAttempts: 1, reconcileDelayMs: 10 }),
    agent,
    memory: new MemoryConversationMemory(),
    telemetry,
    logger: quietLogger,
    budgets: new BudgetGuard(new MemoryUsageMeter(), new MemoryRateLimiter(), quietLogger),
  });
  return { platform, agent, telemetry, worker };
}

let jobs = 0;
function jobFor(ws: Workspace, attempt = 1) {
  const event = chatEvent({ platform: "unit", tenantId: ws.tenantId, workspaceId: ws.id });
  return { id: `job-${++jobs}`, data: event, attempt };
}

describe("ReplyWorker: budgets", () => {
  it("over its tenant's tokens of the day, a message gets the budget reply and no LLM call; another tenant is answered", async () => {
    const poor = budgeted("ws_poor", "tn_poor", { tenant: { tokensPerDay: 50 }, workspace: {} });
    const rich = budgeted("ws_rich", "tn_rich", { tenant: {}, workspace: {} });
    const { platform, agent, telemetry, worker } = deployment(poor, rich);

    await worker.handle(jobFor(poor));
    await worker.handle(jobFor(poor));
    await worker.handle(jobFor(poor));
    await worker.handle(jobFor(rich));

    expect(agent.calls).toBe(2);
    expect(platform.posts.map((post) => [post.event.workspaceId, post.text])).toEqual([
      ["ws_poor", "answer #1"],
      ["ws_poor", budgetReplies.tokensPerDay],
      ["ws_poor", budgetReplies.tokensPerDay],
      ["ws_rich", "answer #2"],
    ]);
    expect(telemetry.counts.budgetExceeded).toBe(2);
  });

  it("sends the budget reply once through the ledger: a retry after a failed send posts it again, nothing more", async () => {
    const ws = budgeted("ws_a", "tn_a", { tenant: {}, workspace: { answersPerMinute: 1 } });
    const { platform, agent, telemetry, worker } = deployment(ws);
    await worker.handle(jobFor(ws));

    const over = jobFor(ws);
    platform.sendFailures.push(new SendRejectedError("could not connect"));
    await expect(worker.handle(over)).rejects.toBeInstanceOf(SendRejectedError);
    await worker.handle({ ...over, attempt: 2 });
    await worker.handle({ ...over, attempt: 3 });

    expect(agent.calls).toBe(1);
    expect(platform.posts.map((post) => post.text)).toEqual(["answer #1", budgetReplies.answersPerMinute]);
    expect(telemetry.counts.budgetExceeded).toBe(1);
  });
});
