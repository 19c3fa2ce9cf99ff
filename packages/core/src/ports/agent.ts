import type { QueuedEvent } from "../chat-event.ts";
import type { WorkspaceSettings } from "../settings.ts";
import type { Turn } from "./conversation-memory.ts";

export interface AgentRequest {
  event: QueuedEvent;
  settings: WorkspaceSettings;
  history: Turn[];
  signal: AbortSignal;
}

export interface AgentAnswer {
  text: string;
  usage: { inputTokens: number; outputTokens: number };
}

/** Writes the answer to one user message. Throws on failure; the job is retried. */
export interface Agent {
  answer(request: AgentRequest): Promise<AgentAnswer>;
}
