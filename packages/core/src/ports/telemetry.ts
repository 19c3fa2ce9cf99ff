import type { BudgetLimit } from "../budget.ts";
import type { Platform } from "../chat-event.ts";
import type { ToolCallReport } from "./agent.ts";

export interface WorkspaceRef {
  platform: Platform;
  tenantId: string;
  workspaceId: string;
}

export type FailureStage = "ingest" | "agent" | "send" | "commit";

/**
 * What the pipeline reports as it goes. The server turns it into Prometheus metrics and cluster-wide stats;
 * implementations must not block or throw: these calls sit on the ack path.
 */
export interface Telemetry {
  deliveryReceived(ws: WorkspaceRef): void;
  platformRetry(platform: Platform, reason: string): void;
  eventDuplicate(ws: WorkspaceRef): void;
  /** A delivery taken in through the standby lane (the shared store was unreachable, or its claim stuck). */
  standbyPass(ws: WorkspaceRef): void;
  failOpenPass(ws: WorkspaceRef): void;
  acked(platform: Platform, status: number, latencyMs: number): void;
  replyDuplicate(ws: WorkspaceRef): void;
  replySent(ws: WorkspaceRef, eventToReplyMs: number): void;
  outcomeUnknown(ws: WorkspaceRef): void;
  /** `reason` is shown to the workspace's admins: build it with failureSummary, never from a secret. */
  failure(ws: WorkspaceRef, stage: FailureStage, reason: string): void;
  llmUsed(ws: WorkspaceRef, tokens: number, latencyMs: number): void;
  /** One tool call of the agent, replayed from the journal or made. */
  toolCalled(ws: WorkspaceRef, report: ToolCallReport): void;
  /** A message got the over-budget reply instead of an answer; no LLM was called. */
  budgetExceeded(ws: WorkspaceRef, limit: BudgetLimit): void;
}

/** The subset of pino the core writes to. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
