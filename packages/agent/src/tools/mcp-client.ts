import { setTimeout as sleep } from "node:timers/promises";
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
/** How long the end of a session (its DELETE) is waited for; a server slow to answer it is not waited on longer. */
const endWaitMs = 1_000;

interface Session {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/** The server could not be reached (initialize failed): nothing was sent after it. */
class Unreachable extends Error {}

/**
 * The MCP sessions of one answer: one per tool server, opened at its first use, reused by every later list and call,
 * and ended (DELETE) by `close` when the answer ends. A session the server has ended answers 404 to its id (the
 * Streamable HTTP transport's session rule): the server did not take the request, so a new session is opened and
 * the request sent once more.
 */
export class McpSessions {
  private readonly open = new Map<string, Promise<Session>>();

  /** Lists a server's tools. Throws when it cannot. */
  async list(server: ToolServer, timeoutMs: number, signal?: AbortSignal): Promise<McpToolInfo[]> {
    try {
      return await this.onSession(server, timeoutMs, signal, async ({ client }) => {
        const tools: McpToolInfo[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs, signal });
          tools.push(...page.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));
          cursor = page.nextCursor;
        } while (cursor);
        return tools;
      });
    } catch (error) {
      const cause = error instanceof Unreachable ? error.cause : error;
      throw new Error(`${server.name} could not list its tools: ${failureSummary(cause, server.authHeader)}`);
    }
  }

  /**
   * Calls one tool, its idempotency key in `_meta`. A server that could not be reached, or answered with an error,
   * did not run the call: a definite outcome. A call that was sent and then timed out, or whose connection broke, or
   * that the server failed on (5xx), may have run: unknown, and never sent again.
   */
  async call(server: ToolServer, tool: string, args: unknown, call: ToolCallContext): Promise<ToolOutcome> {
    const started = performance.now();
    const left = () => Math.max(1, call.timeoutMs - (performance.now() - started));
    try {
      const result = await this.onSession(server, call.timeoutMs, call.signal, ({ client }) =>
        client.callTool(
          {
            name: tool,
            arguments: (args ?? {}) as Record<string, unknown>,
            _meta: { [idempotencyMetaKey]: call.idempotencyKey },
          },
          undefined,
          { timeout: left(), signal: call.signal },
        ),
      );
      return { status: "done", content: resultText(result), isError: result.isError === true };
    } catch (error) {
      call.signal.throwIfAborted();
      if (error instanceof Unreachable)
        return notMade(`${server.name} could not be reached: ${failureSummary(error.cause, server.authHeader)}`);
      const summary = failureSummary(error, server.authHeader);
      if (answeredWithError(error)) return { status: "done", content: `the tool failed: ${summary}`, isError: true };
      return { status: "unknown", reason: summary };
    }
  }

  /** Ends every session; errors are left out, a session that could not be ended is the server's to expire. */
  async close(): Promise<void> {
    const sessions = [...this.open.values()];
    this.open.clear();
    await Promise.all(sessions.map((opening) => opening.then(end, () => {})));
  }

  /** Runs `use` on the server's session, opening it first if need be, and once more on a new one if it had ended. */
  private async onSession<T>(
    server: ToolServer,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    use: (session: Session) => Promise<T>,
  ): Promise<T> {
    const session = await this.session(server, timeoutMs, signal);
    try {
      return await use(session);
    } catch (error) {
      if (!(error instanceof StreamableHTTPError && error.code === 404)) throw error;
      this.forget(server, session);
      return use(await this.session(server, timeoutMs, signal));
    }
  }

  private async session(server: ToolServer, timeoutMs: number, signal?: AbortSignal): Promise<Session> {
    let opening = this.open.get(server.id);
    if (!opening) {
      opening = connect(server, timeoutMs, signal);
      this.open.set(server.id, opening);
      // A session that failed to open is not kept: the next use tries again.
      opening.catch(() => this.open.get(server.id) === opening && this.open.delete(server.id));
    }
    try {
      return await opening;
    } catch (error) {
      throw new Unreachable("unreachable", { cause: error });
    }
  }

  private forget(server: ToolServer, session: Session): void {
    this.open.delete(server.id);
    void session.client.close().catch(() => {});
  }
}

/** Lists a server's tools in a session of its own, ended at once. Throws when it cannot. */
export async function listMcpTools(
  server: ToolServer,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<McpToolInfo[]> {
  const sessions = new McpSessions();
  try {
    return await sessions.list(server, timeoutMs, signal);
  } finally {
    await sessions.close();
  }
}

async function connect(server: ToolServer, timeoutMs: number, signal?: AbortSignal): Promise<Session> {
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
  return { client, transport };
}

/** Tells the server the session is over (it may free it now), then closes the client, aborting what is in flight. */
async function end({ client, transport }: Session): Promise<void> {
  const waited = new AbortController();
  await Promise.race([
    transport.terminateSession().catch(() => {}),
    sleep(endWaitMs, undefined, { signal: waited.signal }).catch(() => {}),
  ]);
  waited.abort();
  await client.close().catch(() => {});
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
