import type { Agent, AgentAnswer, AgentRequest } from "@resident/core";

export const echoPrefix = "(offline echo)";

/** The agent without an LLM (no ANTHROPIC_API_KEY): repeats the message, clearly marked, and spends no tokens. */
export class EchoAgent implements Agent {
  async answer({ event, signal, onText }: AgentRequest): Promise<AgentAnswer> {
    signal.throwIfAborted();
    const text = `${echoPrefix} You said: ${event.text}`;
    onText?.(text);
    return { text, usage: { inputTokens: 0, outputTokens: 0 } };
  }
}
