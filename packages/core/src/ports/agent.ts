import type { QueuedEvent } from "../chat-event.ts";
import type { WorkspaceSettings } from "../settings.ts";
import type { ThreadContext } from "../thread-context.ts";
import type { Turn } from "./conversation-memory.ts";

export interface AgentRequest {
  event: QueuedEvent;
  settings: WorkspaceSettings;
  history: Turn[];
  /** The thread the agent was called into, read from the platform, when it has not been part of it. */
  thread?: ThreadContext;
  signal: AbortSignal;
}

export interface AgentUsage {
  /** Input tokens read neither from nor into the prompt cache. */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the prompt cache. */
  cacheReadTokens?: number;
  /** Input tokens written into the prompt cache. */
  cacheWriteTokens?: number;
}

export interface AgentAnswer {
  text: string;
  usage: AgentUsage;
}

/** Every token the call was billed for: cached input is cheaper, but it is input all the same. */
export function tokensUsed(usage: AgentUsage): number {
  return usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/** Writes the answer to one user message. Throws on failure; the job is retried. */
export interface Agent {
  answer(request: AgentRequest): Promise<AgentAnswer>;
}
