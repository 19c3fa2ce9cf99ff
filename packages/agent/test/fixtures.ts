import { type AgentRequest, type Logger, resolveSettings, type Turn } from "@resident/core";

/** A request as the reply worker makes it: one user message in a Slack thread, with its recent turns. */
export function agentRequest(
  text: string,
  { history = [], signal = new AbortController().signal, systemPrompt, model = "claude-test-model" }: RequestShape = {},
): AgentRequest {
  return {
    event: {
      platform: "slack",
      tenantId: "tenant-1",
      workspaceId: "ws-1",
      eventId: "Ev1",
      messageKey: "C1:1700000000.000100",
      conversation: { id: "C1", threadId: "1700000000.000001", replyToId: "1700000000.000100" },
      author: { id: "U1", isBot: false, isSelf: false },
      text,
      receivedAt: Date.now(),
    },
    settings: resolveSettings({ systemPrompt, model }, "closed"),
    history,
    signal,
  };
}

interface RequestShape {
  history?: Turn[];
  signal?: AbortSignal;
  systemPrompt?: string;
  model?: string;
}

export interface LogLine {
  level: keyof Logger;
  fields: object;
  message?: string;
}

/** A Logger that keeps what it is told, so a test can read the warnings. */
export class CapturingLogger implements Logger {
  readonly lines: LogLine[] = [];
  readonly debug = this.recorder("debug");
  readonly info = this.recorder("info");
  readonly warn = this.recorder("warn");
  readonly error = this.recorder("error");

  at(level: keyof Logger): LogLine[] {
    return this.lines.filter((line) => line.level === level);
  }

  private recorder(level: keyof Logger) {
    return (fields: object, message?: string) => {
      this.lines.push({ level, fields, message });
    };
  }
}
