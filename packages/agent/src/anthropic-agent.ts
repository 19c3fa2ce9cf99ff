import Anthropic, { type ClientOptions } from "@anthropic-ai/sdk";
import type { Agent, AgentAnswer, AgentRequest, Logger } from "@resident/core";
import { leanFetch } from "@resident/http";
import { AgentError, agentFailure, type FailureContext } from "./agent-error.ts";
import { toConversation } from "./conversation.ts";
import { cachedConversation, cachedSystem } from "./prompt-cache.ts";
import { threadBlock } from "./thread-prompt.ts";
import type { BuiltinTool } from "./tools/agent-tool.ts";
import { currentTime } from "./tools/current-time.ts";
import { McpSessions } from "./tools/mcp-client.ts";
import { threadMessages } from "./tools/thread-messages.ts";
import { defaultToolLimits, runToolLoop, type ToolLimits, turnText } from "./tools/tool-loop.ts";
import { Toolbox } from "./tools/toolbox.ts";
import { TransientJournal } from "./tools/transient-journal.ts";

export const defaultAnthropicBaseUrl = "https://api.anthropic.com";
export const defaultMaxTokens = 1024;
export const defaultTimeoutMs = 60_000;

export interface AnthropicAgentOptions {
  apiKey: string;
  /** Another endpoint that speaks the Messages API: a gateway, a proxy, a test fake. */
  baseUrl?: string;
  /** The longest answer, in tokens. */
  maxTokens?: number;
  /** How long one request may take before it fails. */
  timeoutMs?: number;
  /** Bounds of the tool-use loop. */
  toolLimits?: Partial<ToolLimits>;
  /** Tools with no server; default: the current time. */
  builtinTools?: readonly BuiltinTool[];
  /** How long an MCP server's tool list is kept per instance (default 5 min; a changed server is listed at once). */
  toolListTtlMs?: number;
  /**
   * Whether the service exports traces (an OpenTelemetry SDK is registered). Only then does the SDK build its own
   * call span: without a provider the span is a no-op, yet its attributes cost ≈ 0.1 ms of CPU a call.
   */
  traced?: boolean;
  logger: Logger;
}

/**
 * Answers with Claude through the Messages API, running its tool-use loop over the built-in tools and the
 * workspace's MCP servers: one HTTP request per step, never retried here.
 */
export class AnthropicAgent implements Agent {
  /** The origin requests go to; safe to log, unlike a full gateway URL. */
  readonly endpoint: string;
  private readonly client: Anthropic;
  private readonly maxTokens: number;
  private readonly logger: Logger;
  private readonly failure: FailureContext;
  private readonly toolbox: Toolbox;
  private readonly toolLimits: ToolLimits;

  constructor(options: AnthropicAgentOptions) {
    const baseUrl = options.baseUrl ?? defaultAnthropicBaseUrl;
    const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    this.maxTokens = options.maxTokens ?? defaultMaxTokens;
    this.logger = options.logger;
    this.endpoint = new URL(baseUrl).origin;
    this.failure = { apiKey: options.apiKey, origin: this.endpoint, timeoutMs };
    this.toolLimits = { ...defaultToolLimits, ...options.toolLimits };
    this.toolbox = new Toolbox({
      builtins: options.builtinTools ?? [currentTime, threadMessages],
      listTtlMs: options.toolListTtlMs ?? 300_000,
      listTimeoutMs: this.toolLimits.callTimeoutMs,
      logger: options.logger,
    });
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: baseUrl,
      // The durable queue retries a failed job with backoff; retrying here too would multiply LLM calls per message.
      maxRetries: 0,
      timeout: timeoutMs,
      // About half of the global fetch's CPU per call (0.5 ms less, npm run bench:clients).
      fetch: leanFetch,
      logger: sdkLogger(options.logger),
      // Pinned, so ANTHROPIC_LOG=debug cannot dump users' messages into the logs.
      logLevel: "warn",
      // The SDK's own span (under the pipeline's "llm" span when tracing is on) records metadata only; pinned, so
      // ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content cannot put users' messages into exported traces.
      openTelemetry: { traces: { enabled: options.traced ?? false, contentMode: "metadata_only" } },
    });
  }

  async answer(request: AgentRequest): Promise<AgentAnswer> {
    // One MCP session per tool server for the whole answer, ended with it, whether it succeeds or fails.
    const sessions = new McpSessions();
    try {
      return await this.answerWith(request, sessions);
    } finally {
      await sessions.close();
    }
  }

  private async answerWith(request: AgentRequest, sessions: McpSessions): Promise<AgentAnswer> {
    const { event, settings, history, thread, signal, onText } = request;
    const tools = await this.toolbox.toolsFor(request, sessions);
    const definitions = [...tools.values()].map((tool) => tool.definition);
    const ask = async (messages: Anthropic.MessageParam[], final: boolean) => {
      const body = {
        model: settings.model,
        system: withThread(cachedSystem(settings.systemPrompt), thread),
        max_tokens: this.maxTokens,
        messages,
        ...(definitions.length > 0 && { tools: definitions, tool_choice: { type: final ? "none" : "auto" } as const }),
      };
      try {
        // Streamed when someone watches the text arrive. A turn that ends in a tool call may have said a few words
        // first, which the answer does not keep: the watcher then ends up with the whole answer in their place.
        return onText
          ? await this.client.messages.stream(body, { signal }).on("text", onText).finalMessage()
          : await this.client.messages.create(body, { signal });
      } catch (error) {
        // Aborted by the caller (the reply lease was lost): surface the caller's reason, not the SDK's.
        signal.throwIfAborted();
        throw agentFailure(error, this.failure);
      }
    };
    const { turn, usage } = await runToolLoop({
      ask,
      messages: cachedConversation(toConversation(history, event.text)),
      tools,
      journal: request.journal ?? new TransientJournal(),
      limits: this.toolLimits,
      signal,
      onToolCall: request.onToolCall,
    });

    const text = turnText(turn);
    if (text.trim() === "") {
      throw new AgentError(`Anthropic (${settings.model}) returned no text, stop_reason ${turn.stopReason}`);
    }
    if (turn.stopReason === "max_tokens") {
      this.logger.warn(
        { workspaceId: event.workspaceId, model: settings.model, maxTokens: this.maxTokens },
        "the answer was cut off at max_tokens",
      );
    }
    return { text, usage };
  }
}

/** The SDK logs to the console by default; its few warnings belong in our structured log. */
function sdkLogger(logger: Logger): NonNullable<ClientOptions["logger"]> {
  const at =
    (level: keyof Logger) =>
    (message: string, ...details: unknown[]) =>
      logger[level]({ component: "anthropic-sdk", details }, message);
  return { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") };
}

/** The thread's block follows the cached system prompt, so the prompt's cache entry stays the same. */
function withThread(
  system: Anthropic.TextBlockParam[] | undefined,
  thread: AgentRequest["thread"],
): Anthropic.TextBlockParam[] | undefined {
  const blocks = [...(system ?? []), ...threadBlock(thread)];
  return blocks.length === 0 ? undefined : blocks;
}
