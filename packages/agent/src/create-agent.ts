import type { Agent, Logger } from "@resident/core";
import { AnthropicAgent } from "./anthropic-agent.ts";
import { EchoAgent } from "./echo-agent.ts";

export interface CreateAgentOptions {
  /** ANTHROPIC_API_KEY. Unset or blank: the offline echo agent. */
  apiKey?: string;
  /** ANTHROPIC_BASE_URL. */
  baseUrl?: string;
  maxTokens?: number;
  timeoutMs?: number;
  /** Whether the service exports traces (AnthropicAgentOptions.traced). */
  traced?: boolean;
  logger: Logger;
}

/** The agent the service answers with: Claude when a key is given, otherwise the offline echo, loudly. */
export function createAgent({ apiKey, baseUrl, maxTokens, timeoutMs, traced, logger }: CreateAgentOptions): Agent {
  if (!apiKey?.trim()) {
    logger.warn(
      { agent: "echo" },
      "ANTHROPIC_API_KEY is not set: answering OFFLINE with an echo of each message, not with an LLM. " +
        "Set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a gateway) to answer with Claude.",
    );
    return new EchoAgent();
  }
  const agent = new AnthropicAgent({ apiKey: apiKey.trim(), baseUrl, maxTokens, timeoutMs, traced, logger });
  logger.info({ agent: "anthropic", endpoint: agent.endpoint }, "answering with Anthropic");
  return agent;
}
