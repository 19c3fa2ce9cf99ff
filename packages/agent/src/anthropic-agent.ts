import Anthropic, { type ClientOptions } from "@anthropic-ai/sdk";
import type { Agent, AgentAnswer, AgentRequest, Logger } from "@resident/core";
import { AgentError, agentFailure, type FailureContext } from "./agent-error.ts";
import { toConversation } from "./conversation.ts";
import { cachedConversation, cachedSystem } from "./prompt-cache.ts";
import { threadBlock } from "./thread-prompt.ts";

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
  logger: Logger;
}

/** Answers with Claude through the Messages API: one HTTP request per call, never retried here. */
export class AnthropicAgent implements Agent {
  /** The origin requests go to; safe to log, unlike a full gateway URL. */
  readonly endpoint: string;
  private readonly client: Anthropic;
  private readonly maxTokens: number;
  private readonly logger: Logger;
  private readonly failure: FailureContext;

  constructor(options: AnthropicAgentOptions) {
    const baseUrl = options.baseUrl ?? defaultAnthropicBaseUrl;
    const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    this.maxTokens = options.maxTokens ?? defaultMaxTokens;
    this.logger = options.logger;
    this.endpoint = new URL(baseUrl).origin;
    this.failure = { apiKey: options.apiKey, origin: this.endpoint, timeoutMs };
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: baseUrl,
      // The durable queue retries a failed job with backoff; retrying here too would multiply LLM calls per message.
      maxRetries: 0,
      timeout: timeoutMs,
      logger: sdkLogger(options.logger),
      // Pinned, so ANTHROPIC_LOG=debug cannot dump users' messages into the logs.
      logLevel: "warn",
      // The SDK's own span (under the pipeline's "llm" span when tracing is on) records metadata only; pinned, so
      // ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content cannot put users' messages into exported traces.
      openTelemetry: { traces: { enabled: true, contentMode: "metadata_only" } },
    });
  }

  async answer({ event, settings, history, thread, signal }: AgentRequest): Promise<AgentAnswer> {
    let message: Anthropic.Message;
    try {
      message = await this.client.messages.create(
        {
          model: settings.model,
          system: withThread(cachedSystem(settings.systemPrompt), thread),
          max_tokens: this.maxTokens,
          messages: cachedConversation(toConversation(history, event.text)),
        },
        { signal },
      );
    } catch (error) {
      // Aborted by the caller (the reply lease was lost): surface the caller's reason, not the SDK's.
      signal.throwIfAborted();
      throw agentFailure(error, this.failure);
    }

    const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    if (text.trim() === "") {
      throw new AgentError(`Anthropic (${settings.model}) returned no text, stop_reason ${message.stop_reason}`);
    }
    if (message.stop_reason === "max_tokens") {
      this.logger.warn(
        { workspaceId: event.workspaceId, model: settings.model, maxTokens: this.maxTokens },
        "the answer was cut off at max_tokens",
      );
    }
    const { usage } = message;
    return {
      text,
      usage: {
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        cacheReadTokens: usage.cache_read_input_tokens ?? 0,
        cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
      },
    };
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
