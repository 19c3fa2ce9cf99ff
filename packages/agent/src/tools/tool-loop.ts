import type Anthropic from "@anthropic-ai/sdk";
import { type AgentJournal, type AgentUsage, inSpan, type ToolCallReport, type ToolOutcome } from "@resident/core";
import type { AgentTool } from "./agent-tool.ts";

export interface ToolLimits {
  /** Turns that may ask for tools; the turn after the last of them must answer (tool_choice none). */
  maxSteps: number;
  /** Time for the whole loop, per attempt: once spent, the model is asked to answer, and no tool runs. */
  budgetMs: number;
  /** The longest one tool call may take; past it, its outcome is unknown. */
  callTimeoutMs: number;
}

export const defaultToolLimits: ToolLimits = { maxSteps: 6, budgetMs: 90_000, callTimeoutMs: 20_000 };

/** One turn of the model as the journal keeps it: the blocks the next request sends back. */
export interface StepTurn {
  content: TurnBlock[];
  stopReason: string | null;
}

type TurnBlock = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown };

export interface ToolLoopOptions {
  /** One Messages API call; `final`: the model must answer now, with no tool. */
  ask(messages: Anthropic.MessageParam[], final: boolean): Promise<Anthropic.Message>;
  messages: Anthropic.MessageParam[];
  tools: ReadonlyMap<string, AgentTool>;
  journal: AgentJournal;
  limits: ToolLimits;
  signal: AbortSignal;
  onToolCall?: (report: ToolCallReport) => void;
  now?: () => number;
}

/**
 * The Messages API's tool-use loop, made of recovery points: each step's turn is journaled before its tools run and
 * each call's outcome as it lands, so a retried or taken-over attempt replays the steps already taken — no LLM call,
 * no tool call — and goes on from the first step not yet journaled.
 */
export async function runToolLoop(options: ToolLoopOptions): Promise<{ turn: StepTurn; usage: AgentUsage }> {
  const { journal, limits, signal } = options;
  const now = options.now ?? (() => performance.now());
  const deadline = now() + limits.budgetMs;
  const messages = [...options.messages];
  const usage: Required<AgentUsage> = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

  for (let step = 0; ; step++) {
    const final = step >= limits.maxSteps || now() >= deadline;
    const kept = await journal.step(step);
    let turn: StepTurn = kept ? JSON.parse(kept) : toTurn(await ask(options, messages, final, usage));
    // The last turn is not kept here: its text is the answer, which the caller journals as it stands (one write a
    // message instead of two). Only a turn whose tools are about to run is a recovery point of the loop's own.
    // (What stands after keeping may be a racing attempt's turn, a last one or not.)
    if (!kept && !isLast(turn, step, limits)) turn = JSON.parse(await journal.keepStep(step, JSON.stringify(turn)));
    if (isLast(turn, step, limits)) return { turn, usage };
    const uses = turn.content.filter((block) => block.type === "tool_use");

    messages.push({ role: "assistant", content: turn.content as Anthropic.ContentBlockParam[] });
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const [index, use] of uses.entries()) {
      const started = now();
      // A span per call, under the pipeline's "llm" span: the tool's name and outcome, never its input or result.
      const { outcome, replayed } = await inSpan(
        "tool",
        { attributes: { "gen_ai.tool.name": use.name } },
        async (span) => {
          const called = await journal.call(step, index, (idempotencyKey) => {
            const left = deadline - now();
            if (left <= 0) return Promise.resolve(notRun("the time for tools ran out before this call"));
            const tool = options.tools.get(use.name);
            if (!tool) return Promise.resolve(notRun(`there is no tool named ${use.name} now`));
            return tool.run(use.input, { idempotencyKey, timeoutMs: Math.min(limits.callTimeoutMs, left), signal });
          });
          span.setAttributes({
            "resident.tool.outcome": reportOf(called.outcome),
            "resident.tool.replayed": called.replayed,
          });
          return called;
        },
      );
      signal.throwIfAborted();
      options.onToolCall?.({ tool: use.name, outcome: reportOf(outcome), replayed, latencyMs: now() - started });
      results.push(toolResult(use.id, outcome));
    }
    messages.push({ role: "user", content: results });
  }
}

/** A turn that asks for no tool, or one past the last step: the loop ends with it. */
function isLast(turn: StepTurn, step: number, limits: ToolLimits): boolean {
  return step >= limits.maxSteps || !turn.content.some((block) => block.type === "tool_use");
}

async function ask(
  options: ToolLoopOptions,
  messages: Anthropic.MessageParam[],
  final: boolean,
  usage: Required<AgentUsage>,
): Promise<Anthropic.Message> {
  const message = await options.ask(messages, final);
  usage.inputTokens += message.usage.input_tokens;
  usage.outputTokens += message.usage.output_tokens;
  usage.cacheReadTokens += message.usage.cache_read_input_tokens ?? 0;
  usage.cacheWriteTokens += message.usage.cache_creation_input_tokens ?? 0;
  return message;
}

function toTurn(message: Anthropic.Message): StepTurn {
  const content = message.content.flatMap((block): TurnBlock[] => {
    if (block.type === "text") return [{ type: "text", text: block.text }];
    if (block.type === "tool_use") return [{ type: "tool_use", id: block.id, name: block.name, input: block.input }];
    return [];
  });
  return { content, stopReason: message.stop_reason };
}

const notRun = (why: string): ToolOutcome => ({ status: "done", content: `not run: ${why}`, isError: true });

const reportOf = (outcome: ToolOutcome): ToolCallReport["outcome"] =>
  outcome.status === "unknown" ? "unknown" : outcome.isError ? "error" : "ok";

/** What the model reads for a call. An unknown outcome says so, so that the model neither repeats nor trusts it. */
function toolResult(id: string, outcome: ToolOutcome): Anthropic.ToolResultBlockParam {
  if (outcome.status === "done") {
    return { type: "tool_result", tool_use_id: id, content: outcome.content, is_error: outcome.isError };
  }
  return {
    type: "tool_result",
    tool_use_id: id,
    is_error: true,
    content:
      `The outcome of this call is unknown (${outcome.reason}): it may or may not have taken effect. ` +
      "It was not repeated and must not be repeated; tell the user it is unconfirmed.",
  };
}

/** The turn's text, its blocks joined. */
export function turnText(turn: StepTurn): string {
  return turn.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}
