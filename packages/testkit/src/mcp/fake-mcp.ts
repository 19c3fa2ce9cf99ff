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
 * A fake MCP server on a real HTTP server, speaking Streamable HTTP through the SDK's own server transport
 * (stateless: one transport per request, JSON answers). It records every tool call, with the idempotency key in its
 * `_meta`, and every `tools/list`. `hold` makes the next tool calls slow (a timeout); `refuse` answers HTTP errors.
 */
export class FakeMcp {
  readonly toolCalls: McpToolCall[] = [];
  listCalls = 0;
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

  close(): Promise<void> {
    return closeServer(this.server);
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
    const body = req.method === "POST" ? JSON.parse((await readBody(req)) || "null") : undefined;
    if (body?.method === "tools/list") this.listCalls++;
    const mcp = this.mcpServer(typeof presented === "string" ? presented : undefined);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private mcpServer(presentedAuth: string | undefined): McpServer {
    const mcp = new McpServer({ name: "fake-mcp", version: "1.0.0" });
    for (const tool of this.tools) {
      mcp.registerTool(
        tool.name,
        { description: tool.description, inputSchema: { query: z.string() } },
        async (args, extra) => {
          const key = extra._meta?.[idempotencyMetaKey];
          this.toolCalls.push({
            tool: tool.name,
            arguments: args,
            idempotencyKey: typeof key === "string" ? key : undefined,
            presentedAuth,
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
