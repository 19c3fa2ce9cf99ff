import type { IncomingHttpHeaders } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type FakeResponse, FakeServer, type RecordedCall } from "../fake-server.ts";

const route = "POST /v1/messages";

export interface FakeMessage {
  role: string;
  /** The message's text: its string content, or its text blocks joined. */
  text: string;
  /** Its `tool_use` blocks (an assistant turn asking for tools). */
  toolUses: FakeToolUse[];
  /** Its `tool_result` blocks (a user turn answering them). */
  toolResults: FakeToolResult[];
}

export interface FakeToolUse {
  id: string;
  name: string;
  input: unknown;
}

export interface FakeToolResult {
  toolUseId: string;
  /** Its content: a string, or its text blocks joined. */
  text: string;
  isError: boolean;
}

/** One call to the fake as the Messages API would read it. */
export interface AnthropicCall {
  model?: string;
  system?: string;
  maxTokens?: number;
  messages: FakeMessage[];
  /** The names of the tools offered. */
  tools: string[];
  /** `tool_choice.type`, when given ("auto", "any", "tool", "none"). */
  toolChoice?: string;
  /** Whether the caller asked for server-sent events (`stream: true`). */
  stream: boolean;
  /** The parts marked `cache_control: {type: "ephemeral"}`, in order: "system", "messages.<index>". */
  cacheBreakpoints: string[];
  /** The key the caller presented, in `x-api-key` or `Authorization: Bearer`. */
  apiKey?: string;
  /** What the fake answered with. */
  status?: number;
  request: RecordedCall;
}

/**
 * What the fake answers: its text (several strings: several text blocks), optionally usage and stop reason, and the
 * tools it asks for (`tool_use` blocks after the text, stop reason `tool_use`). Under `tool_choice: none` the fake,
 * like the API, asks for no tool.
 */
export interface FakeAnswer {
  text: string | string[];
  toolUse?: { name: string; input: Record<string, unknown> }[];
  /** Wait this long before answering: a slow turn (the call stays in flight, its status unset, meanwhile). */
  delayMs?: number;
  usage?: FakeUsage;
  stopReason?: string;
}

export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export type Answerer = (call: AnthropicCall) => string | FakeAnswer;

export interface FakeAnthropicOptions {
  /** The only key accepted; default: any non-empty key. */
  apiKey?: string;
  /** Default: "answer to: <the last user message>". */
  answer?: Answerer;
}

const errorTypes: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

export const defaultAnswer: Answerer = (call) => `answer to: ${call.messages.findLast((m) => m.role === "user")?.text}`;

/**
 * A fake Anthropic Messages API (`POST /v1/messages`) on a real HTTP server. It is stricter than the real API about
 * the conversation's shape (first turn user, roles alternating, no empty text), so a test proves what we send is
 * canonical. A call with `stream: true` is answered with the API's server-sent events, one word per text delta
 * (slowly after `streamSlowly`), and its recorded status is set only once the stream is written. Usage is counted in words, deterministically, and prompt caching is modelled: the prompt up to a part
 * marked with `cache_control` is written to the cache (cache_creation_input_tokens) the first time it is seen and
 * read from it (cache_read_input_tokens) after, with no minimum length and no expiry.
 */
export class FakeAnthropic {
  readonly server: FakeServer;
  private answerer: Answerer;
  private answered = 0;
  private pieceDelayMs = 0;
  private readonly cachedPrefixes = new Set<string>();

  constructor(private readonly options: FakeAnthropicOptions = {}) {
    this.answerer = options.answer ?? defaultAnswer;
    this.server = new FakeServer({ [route]: (call) => this.respond(call) });
  }

  async start(port?: number): Promise<this> {
    await this.server.start(port);
    return this;
  }

  /** http://127.0.0.1:<port>, the value for ANTHROPIC_BASE_URL. */
  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  answerWith(answerer: Answerer): this {
    this.answerer = answerer;
    return this;
  }

  /** Every call to the Messages API, answered or not, oldest first; from the `since`-th on, if given. */
  calls(since = 0): AnthropicCall[] {
    return this.server.callsTo(route).slice(since).map(readCall);
  }

  callCount(): number {
    return this.server.callsTo(route).length;
  }

  /** Answers the next `times` calls (default: until `clearFaults`) with an API error, without answering the message. */
  fail(status = 500, times?: number): this {
    this.server.fault(route, { respond: apiError(status, "the fake failed on purpose") }, times);
    return this;
  }

  /** Answers the next `times` calls (default: until `clearFaults`) with a 429 and a Retry-After. */
  rateLimit(retryAfterSeconds: number, times?: number): this {
    const response = {
      ...apiError(429, "rate limited by the fake"),
      headers: { "retry-after": String(retryAfterSeconds) },
    };
    this.server.fault(route, { respond: response }, times);
    return this;
  }

  /**
   * Holds each of the next `times` calls (default: until `clearFaults`) for `ms` before answering it; with `ms`
   * Infinity, until `clearFaults`.
   */
  hold(ms: number, times?: number): this {
    this.server.fault(route, { stallMs: ms }, times);
    return this;
  }

  /** Streams every answer asked for with `stream: true` one word per event, `ms` apart, until `clearFaults`. */
  streamSlowly(ms: number): this {
    this.pieceDelayMs = ms;
    return this;
  }

  clearFaults(): this {
    this.server.clearFaults();
    this.pieceDelayMs = 0;
    return this;
  }

  private async respond(request: RecordedCall): Promise<FakeResponse> {
    const call = readCall(request);
    if (!call.apiKey || (this.options.apiKey !== undefined && call.apiKey !== this.options.apiKey)) {
      return apiError(401, "invalid x-api-key");
    }
    const invalid = invalidRequest(call);
    if (invalid) return apiError(400, invalid);

    const answer = this.answerer(call);
    const { text, usage, stopReason, toolUse, delayMs }: FakeAnswer =
      typeof answer === "string" ? { text: answer } : answer;
    if (delayMs) await sleep(delayMs);
    const blocks = (Array.isArray(text) ? text : [text]).filter((block) => block !== "");
    const serial = ++this.answered;
    const toolBlocks = (call.toolChoice === "none" ? [] : (toolUse ?? [])).map(({ name, input }, index) => ({
      type: "tool_use",
      id: `toolu_fake_${serial}_${index}`,
      name,
      input,
    }));
    const message = {
      id: `msg_fake_${serial}`,
      type: "message",
      role: "assistant",
      model: call.model,
      content: [...blocks.map((block) => ({ type: "text", text: block })), ...toolBlocks],
      stop_reason: stopReason ?? (toolBlocks.length > 0 ? "tool_use" : "end_turn"),
      stop_sequence: null,
      usage: usage ?? { ...this.inputUsage(call), output_tokens: words(blocks.join(" ")) },
    };
    const headers = { "request-id": `req_fake_${serial}` };
    if (!call.stream) return { status: 200, headers, body: message };
    return {
      status: 200,
      headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
      stream: serverSentEvents(message, blocks, toolBlocks, this.pieceDelayMs),
    };
  }

  /** The prompt's words, split into those read from the cache, written into it, and neither. */
  private inputUsage(call: AnthropicCall): Omit<FakeUsage, "output_tokens"> {
    const parts = [
      ...(call.system === undefined ? [] : [["system", call.system]]),
      ...call.messages.map((m, i) => [`messages.${i}`, m.text]),
    ];
    const wordsUpTo = (end: number) => parts.slice(0, end).reduce((sum, [, text]) => sum + words(text ?? ""), 0);
    let read = 0;
    let cached = 0;
    for (const [index, [name]] of parts.entries()) {
      if (!name || !call.cacheBreakpoints.includes(name)) continue;
      const prefix = JSON.stringify([call.model, parts.slice(0, index + 1)]);
      if (this.cachedPrefixes.has(prefix)) read = wordsUpTo(index + 1);
      this.cachedPrefixes.add(prefix);
      cached = wordsUpTo(index + 1);
    }
    return {
      input_tokens: wordsUpTo(parts.length) - cached,
      cache_creation_input_tokens: cached - read,
      cache_read_input_tokens: read,
    };
  }
}

function readCall(request: RecordedCall): AnthropicCall {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  return {
    model: typeof body.model === "string" ? body.model : undefined,
    system: body.system === undefined ? undefined : textOf(body.system),
    maxTokens: typeof body.max_tokens === "number" ? body.max_tokens : undefined,
    stream: body.stream === true,
    messages: messages.map((m) => ({
      role: String(m.role),
      text: textOf(m.content),
      toolUses: blocksOf(m.content, "tool_use").map((b) => ({
        id: String(b.id),
        name: String(b.name),
        input: b.input,
      })),
      toolResults: blocksOf(m.content, "tool_result").map((b) => ({
        toolUseId: String(b.tool_use_id),
        text: textOf(b.content),
        isError: b.is_error === true,
      })),
    })),
    tools: Array.isArray(body.tools) ? body.tools.map((tool) => String((tool as { name?: unknown }).name)) : [],
    toolChoice: (body.tool_choice as { type?: string } | undefined)?.type,
    cacheBreakpoints: [
      ...(hasCacheControl(body.system) ? ["system"] : []),
      ...messages.flatMap((m, i) => (hasCacheControl(m.content) ? [`messages.${i}`] : [])),
    ],
    apiKey: presentedKey(request.headers),
    status: request.status,
    request,
  };
}

/** The real API reads `x-api-key`; SDK 1.x sends the key as `Authorization: Bearer`. */
function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const header = headers["x-api-key"];
  if (typeof header === "string" && header !== "") return header;
  const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? "");
  return bearer?.[1];
}

function hasCacheControl(content: unknown): boolean {
  return Array.isArray(content) && content.some((block) => block?.cache_control?.type === "ephemeral");
}

function blocksOf(content: unknown, type: string): Record<string, unknown>[] {
  return Array.isArray(content) ? content.filter((block) => block?.type === type) : [];
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => (block?.type === "text" ? String(block.text) : "")).join("");
}

function invalidRequest(call: AnthropicCall): string | undefined {
  if (!call.model) return "model: field required";
  if (!call.maxTokens || call.maxTokens < 1) return "max_tokens: must be a positive integer";
  if (call.messages.length === 0) return "messages: at least one message is required";
  for (const tool of call.tools) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool)) return `tools: name ${tool} does not match ^[a-zA-Z0-9_-]{1,64}$`;
  }
  for (const [index, message] of call.messages.entries()) {
    const expected = index % 2 === 0 ? "user" : "assistant";
    if (message.role !== expected) return `messages.${index}.role: expected ${expected}, got ${message.role}`;
    const hasTools = message.toolUses.length + message.toolResults.length > 0;
    if (message.text.trim() === "" && !hasTools) return `messages.${index}: text content blocks must be non-empty`;
    if (hasTools && call.tools.length === 0) {
      return "Requests which include `tool_use` or `tool_result` blocks must define tools.";
    }
    const asked = call.messages[index - 1]?.toolUses.map((use) => use.id) ?? [];
    const answered = message.toolResults.map((result) => result.toolUseId);
    if (message.role === "user" && JSON.stringify(asked) !== JSON.stringify(answered)) {
      return `messages.${index}: each tool_use of messages.${index - 1} needs a tool_result, in order`;
    }
  }
  return undefined;
}

/** The Messages API's event stream for `message`: each text block word by word, `delayMs` apart, then its tool calls. */
async function* serverSentEvents(
  message: { content: unknown[]; stop_reason: string; usage: FakeUsage } & Record<string, unknown>,
  blocks: string[],
  toolBlocks: { type: string; id: string; name: string; input: unknown }[],
  delayMs: number,
): AsyncGenerator<string> {
  const { usage } = message;
  yield sse("message_start", {
    type: "message_start",
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 0 } },
  });
  for (const [index, block] of blocks.entries()) {
    yield sse("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (const piece of block.split(/(?<=\s)/)) {
      if (delayMs > 0) await sleep(delayMs);
      yield sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: piece },
      });
    }
    yield sse("content_block_stop", { type: "content_block_stop", index });
  }
  for (const [offset, { input, ...block }] of toolBlocks.entries()) {
    const index = blocks.length + offset;
    yield sse("content_block_start", { type: "content_block_start", index, content_block: { ...block, input: {} } });
    yield sse("content_block_delta", {
      type: "content_block_delta",
      index,
      delta: { type: "input_json_delta", partial_json: JSON.stringify(input ?? {}) },
    });
    yield sse("content_block_stop", { type: "content_block_stop", index });
  }
  yield sse("message_delta", {
    type: "message_delta",
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  yield sse("message_stop", { type: "message_stop" });
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function apiError(status: number, message: string): FakeResponse {
  return { status, body: { type: "error", error: { type: errorTypes[status] ?? "api_error", message } } };
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
