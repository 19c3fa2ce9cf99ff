import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { failureSummary, idempotencyMetaKey, type ToolOutcome, type ToolServer } from "@resident/core";
import type { ToolCallContext } from "./agent-tool.ts";

/** A tool as its MCP server lists it. */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: { type: "object"; [key: string]: unknown };
}

/** The longest tool result handed to the model. */
const maxResultChars = 20_000;

/** Lists a server's tools: one short session (initialize, tools/list, close). Throws when it cannot. */
export async function listMcpTools(
  server: ToolServer,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<McpToolInfo[]> {
  const client = await connect(server, timeoutMs, signal);
  try {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs, signal });
      tools.push(...page.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } catch (error) {
    throw new Error(`${server.name} could not list its tools: ${failureSummary(error, server.authHeader)}`);
  } finally {
    await client.close().catch(() => {});
  }
}

/**
 * Calls one tool, its idempotency key in `_meta`. A server that could not be reached, or answered with an error,
 * did not run the call: a definite outcome. A call that was sent and then timed out, or whose connection broke, or
 * that the server failed on (5xx), may have run: unknown, and never sent again.
 */
export async function callMcpTool(
  server: ToolServer,
  tool: string,
  args: unknown,
  call: ToolCallContext,
): Promise<ToolOutcome> {
  const started = performance.now();
  let client: Client;
  try {
    client = await connect(server, call.timeoutMs, call.signal);
  } catch (error) {
    call.signal.throwIfAborted();
    return notMade(`${server.name} could not be reached: ${failureSummary(error, server.authHeader)}`);
  }
  try {
    const result = await client.callTool(
      {
        name: tool,
        arguments: (args ?? {}) as Record<string, unknown>,
        _meta: { [idempotencyMetaKey]: call.idempotencyKey },
      },
      undefined,
      { timeout: Math.max(1, call.timeoutMs - (performance.now() - started)), signal: call.signal },
    );
    return { status: "done", content: resultText(result), isError: result.isError === true };
  } catch (error) {
    call.signal.throwIfAborted();
    const summary = failureSummary(error, server.authHeader);
    if (answeredWithError(error)) return { status: "done", content: `the tool failed: ${summary}`, isError: true };
    return { status: "unknown", reason: summary };
  } finally {
    await client.close().catch(() => {});
  }
}

async function connect(server: ToolServer, timeoutMs: number, signal?: AbortSignal): Promise<Client> {
  const headers = server.authHeader ? { [server.authHeader.name]: server.authHeader.value } : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers },
    // One attempt per request: a resent tools/call could run twice.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1_000,
      maxReconnectionDelay: 1_000,
      reconnectionDelayGrowFactor: 1,
    },
  });
  const client = new Client({ name: "resident", version: "0.1.0" });
  await client.connect(transport, { timeout: timeoutMs, signal });
  return client;
}

/** The server answered, and said no: a JSON-RPC error other than the SDK's own timeout and lost connection, or a 4xx. */
function answeredWithError(error: unknown): boolean {
  if (error instanceof McpError)
    return error.code !== ErrorCode.RequestTimeout && error.code !== ErrorCode.ConnectionClosed;
  if (error instanceof StreamableHTTPError) return error.code !== undefined && error.code >= 400 && error.code < 500;
  return false;
}

const notMade = (reason: string): ToolOutcome => ({
  status: "done",
  content: `${reason}; the call was not made`,
  isError: true,
});

function resultText(result: Record<string, unknown>): string {
  const blocks = Array.isArray(result.content) ? (result.content as { type?: string; text?: string }[]) : [];
  const parts = blocks.map((block) =>
    block.type === "text" ? String(block.text) : `[${block.type} content left out]`,
  );
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join("\n").trim() || "(the tool returned nothing)";
  return text.length > maxResultChars ? `${text.slice(0, maxResultChars)}… (cut)` : text;
}
