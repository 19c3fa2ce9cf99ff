import type { QueuedEvent } from "../chat-event.ts";
import type { WorkspaceSettings } from "../settings.ts";
import type { ThreadContext } from "../thread-context.ts";
import type { Turn } from "./conversation-memory.ts";
import type { ToolServer } from "./tenant-directory.ts";

export interface AgentRequest {
  event: QueuedEvent;
  settings: WorkspaceSettings;
  history: Turn[];
  /** The thread the agent was called into, read from the platform, when it has not been part of it. */
  thread?: ThreadContext;
  signal: AbortSignal;
  /** The workspace's MCP servers, whose tools the agent may call. */
  toolServers?: readonly ToolServer[];
  /** Where each step of the tool-use loop is kept, so a retry or a takeover replays it (see ToolJournal). */
  journal?: AgentJournal;
  /** Reads the thread the event belongs to from its platform (cached, within its limits): the built-in tool's source. */
  readThread?: () => Promise<ThreadContext | undefined>;
  /** Told of every tool call, replayed ones included: metrics and stats count them. */
  onToolCall?: (report: ToolCallReport) => void;
  /**
   * Receives the text as the LLM writes it, piece by piece. Without a tool call the pieces joined are the answer's
   * text; a turn that ends in a tool call may add words first that the answer does not keep.
   */
  onText?: (delta: string) => void;
}

/**
 * What became of one tool call. `unknown`: it was sent but its answer never came (a timeout, a lost connection, an
 * attempt that died mid-call), so it may or may not have taken effect — it is never repeated.
 */
export type ToolOutcome = { status: "done"; content: string; isError: boolean } | { status: "unknown"; reason: string };

export interface ToolCallReport {
  tool: string;
  outcome: "ok" | "error" | "unknown";
  /** Read back from the journal: the tool was not called again. */
  replayed: boolean;
  latencyMs: number;
}

/** One call as the journal runs it: the idempotency key is the same for every attempt at the same step. */
export type ToolCallRun = (idempotencyKey: string) => Promise<ToolOutcome>;

/** The tool-use loop's recovery points, kept per user message beside the reply claim. */
export interface AgentJournal {
  /** The model's turn at `step`, as an earlier attempt kept it. */
  step(step: number): Promise<string | undefined>;
  /** Keeps the model's turn at `step`; resolves to the turn that stands (the first kept). */
  keepStep(step: number, turn: string): Promise<string>;
  /**
   * The outcome of the `index`-th call of `step`: the journaled one if any attempt finished it; `unknown` if an
   * earlier attempt started it and never recorded an outcome; else `run`'s, journaled. `replayed` says whether
   * `run` was skipped.
   */
  call(step: number, index: number, run: ToolCallRun): Promise<{ outcome: ToolOutcome; replayed: boolean }>;
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
  /** The tokens of the LLM calls this attempt made (replayed steps cost none). */
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
