import type Anthropic from "@anthropic-ai/sdk";
import type { AgentRequest, ToolOutcome } from "@resident/core";

/** What one call of a tool is given: the key a server may deduplicate by, its time limit, the lease's signal. */
export interface ToolCallContext {
  idempotencyKey: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** A tool the model may call: how it is offered (name, description, input schema) and how it runs. */
export interface AgentTool {
  definition: Anthropic.Tool;
  run(input: unknown, call: ToolCallContext): Promise<ToolOutcome>;
}

/**
 * A tool built into the agent, with no server: made for one request (so it may read the event, e.g. the thread it
 * belongs to), or undefined when it has nothing to offer that request.
 */
export type BuiltinTool = (request: AgentRequest) => AgentTool | undefined;
