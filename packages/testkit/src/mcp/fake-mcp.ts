import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { idempotencyMetaKey } from "@resident/core";
import { z } from "zod";
import { closeServer, listenOnLoopback } from "../fake-server.ts";

/** One tool the fake serves: it takes a `query` string and answers with `answer(query)`. */
export interface FakeTool {
  name: string;
  description: string;
  answer(query: string): string;
}

/** One `tools/call` as the fake received it. */
export interface McpToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  /** `_meta[io.resident/idempotency-key]` of the request. */
  idempotencyKey?: string;
  /** The auth header the caller presented (the one named in `FakeMcpOptions.auth`). */
  presentedAuth?: string;
  at: number;
}

export interface FakeMcpOptions {
  tools?: FakeTool[];
  /** Refuse (401) any request without this header value. */
  auth?: { header: string; value: string };
}

export const defaultTools: FakeTool[] = [
  { name: "lookup_order", description: "Looks an order up by its number", answer: (q) => `order ${q}: shipped` },
  { name: "open_ticket", description: "Opens a support ticket", answer: (q) => `ticket opened for: ${q}` },
];

/**
 * A fake MCP server on a real HTTP server, speaking Streamable HTTP through the SDK's own server transport, with
 * sessions (one transport per session, JSON answers, no server-sent stream: a GET is 405). It records every tool
 * call, with the idempotency key in its `_meta`, every `tools/list` and every session opened (`initialize`).
 * `hold` makes the next tool calls slow (a timeout); `refuse` answers HTTP errors; `expireSessions` ends every open
 * session, so that a request on one is answered 404, as the transport's session rule has it.
 */
export class FakeMcp {
  readonly toolCalls: McpToolCall[] = [];
  listCalls = 0;
  /** `initialize` requests served: the sessions opened. */
  sessionsOpened = 0;
  /** Sessions the client ended itself (DELETE). */
  sessionsEnded = 0;
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();
  private readonly server: Server;
  private readonly tools: FakeTool[];
  private holds: number[] = [];
  private refusals: number[] = [];
  private baseUrl = "";

  constructor(private readonly options: FakeMcpOptions = {}) {
    this.tools = options.tools ?? defaultTools;
    this.server = createServer((req, res) => {
      this.serve(req, res).catch((error) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: String(error) }));
      });
    });
  }

  async start(port = 0): Promise<this> {
    this.baseUrl = await listenOnLoopback(this.server, port);
    return this;
  }

  /** The server's MCP endpoint, http://127.0.0.1:<port>/mcp */
  get url(): string {
    return `${this.baseUrl}/mcp`;
  }

  async close(): Promise<void> {
    await this.expireSessions();
    await closeServer(this.server);
  }

  /** The calls of one tool, oldest first. */
  callsOf(tool: string): McpToolCall[] {
    return this.toolCalls.filter((call) => call.tool === tool);
  }

  /** The next `times` tool calls are recorded, then wait `ms` before answering. */
  hold(ms: number, times = 1): this {
    for (let i = 0; i < times; i++) this.holds.push(ms);
    return this;
  }

  /** Sessions opened and not yet ended, by the client or `expireSessions`. */
  get openSessions(): number {
    return this.sessions.size;
  }

  /** Ends every open session on the server's side: a later request on one is answered 404. */
  async expireSessions(): Promise<void> {
    const transports = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(transports.map((transport) => transport.close()));
  }

  /** The next `times` requests of any kind are answered with HTTP `status` and not served. */
  refuse(status: number, times = 1): this {
    for (let i = 0; i < times; i++) this.refusals.push(status);
    return this;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? "/", "http://fake").pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const refusal = this.refusals.shift();
    if (refusal !== undefined) {
      res.writeHead(refusal, { "content-type": "application/json" }).end('{"error":"refused by the fake"}');
      return;
    }
    const { auth } = this.options;
    const presented = auth ? req.headers[auth.header.toLowerCase()] : undefined;
    if (auth && presented !== auth.value) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
      return;
    }
    if (req.method === "GET") {
      res.writeHead(405, { allow: "POST, DELETE" }).end();
      return;
    }
    const body = req.method === "POST" ? JSON.parse((await readBody(req)) || "null") : undefined;
    if (body?.method === "tools/list") this.listCalls++;
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = this.sessions.get(sessionId);
      if (!transport) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      if (req.method === "DELETE") this.sessionsEnded++;
      await transport.handleRequest(req, res, body);
      return;
    }
    if (body?.method === "initialize") this.sessionsOpened++;
    const mcp = this.mcpServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        this.sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    transport.onclose = () => void mcp.close();
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private mcpServer(): McpServer {
    const mcp = new McpServer({ name: "fake-mcp", version: "1.0.0" });
    for (const tool of this.tools) {
      mcp.registerTool(
        tool.name,
        { description: tool.description, inputSchema: { query: z.string() } },
        async (args, extra) => {
          const key = extra._meta?.[idempotencyMetaKey];
          const header = this.options.auth?.header.toLowerCase();
          const presentedAuth = header ? extra.requestInfo?.headers[header] : undefined;
          this.toolCalls.push({
            tool: tool.name,
            arguments: args,
            idempotencyKey: typeof key === "string" ? key : undefined,
            presentedAuth: typeof presentedAuth === "string" ? presentedAuth : undefined,
            at: Date.now(),
          });
          const holdMs = this.holds.shift();
          if (holdMs !== undefined) await sleep(holdMs);
          return { content: [{ type: "text", text: tool.answer(args.query) }] };
        },
      );
    }
    return mcp;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
