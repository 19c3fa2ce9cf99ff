import type Anthropic from "@anthropic-ai/sdk";
import type { AgentRequest, Logger, ToolServer } from "@resident/core";
import { LRUCache } from "lru-cache";
import type { AgentTool, BuiltinTool } from "./agent-tool.ts";
import type { McpSessions, McpToolInfo } from "./mcp-client.ts";

export interface ToolboxOptions {
  builtins: readonly BuiltinTool[];
  /** How long a server's tool list is kept; a changed server (its `updatedAt`) is listed afresh at once. */
  listTtlMs: number;
  listTimeoutMs: number;
  logger: Logger;
}

/** Between the server's name and the tool's in the name the model sees: `crm__lookup_order`. */
const separator = "__";
const validName = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The tools of one request: the built-in ones, then every tool of the workspace's MCP servers under its server's
 * name. Servers' lists are cached per server and version on this instance; a server that cannot be listed is left
 * out of this request (and logged), not cached, so it is asked again next time. Listing and calls go through the
 * answer's `sessions`: one MCP session per server for the whole answer.
 */
export class Toolbox {
  private readonly lists: LRUCache<string, McpToolInfo[]>;

  constructor(private readonly options: ToolboxOptions) {
    this.lists = new LRUCache({ max: 1_000, ttl: options.listTtlMs });
  }

  async toolsFor(request: AgentRequest, sessions: McpSessions): Promise<Map<string, AgentTool>> {
    const tools = new Map<string, AgentTool>();
    for (const builtin of this.options.builtins) {
      const tool = builtin(request);
      if (tool) tools.set(tool.definition.name, tool);
    }
    const servers = request.toolServers ?? [];
    const lists = await Promise.all(servers.map((server) => this.list(server, request, sessions)));
    for (const [index, server] of servers.entries()) {
      for (const info of lists[index] ?? []) {
        const name = `${server.name}${separator}${info.name}`;
        if (!validName.test(name) || tools.has(name)) {
          this.options.logger.warn(
            { server: server.name, tool: info.name },
            "MCP tool left out: its name does not fit",
          );
          continue;
        }
        tools.set(name, mcpTool(server, name, info, sessions));
      }
    }
    return tools;
  }

  /** Forgets every cached list: the next request lists each server again. */
  clear(): void {
    this.lists.clear();
  }

  private async list(server: ToolServer, request: AgentRequest, sessions: McpSessions): Promise<McpToolInfo[]> {
    const key = `${server.id}@${server.updatedAt}`;
    const cached = this.lists.get(key);
    if (cached) return cached;
    try {
      const tools = await sessions.list(server, this.options.listTimeoutMs, request.signal);
      this.lists.set(key, tools);
      return tools;
    } catch (error) {
      request.signal.throwIfAborted();
      this.options.logger.warn(
        { workspaceId: request.event.workspaceId, server: server.name, err: (error as Error).message },
        "MCP server left out of this answer: its tools could not be listed",
      );
      return [];
    }
  }
}

function mcpTool(server: ToolServer, name: string, info: McpToolInfo, sessions: McpSessions): AgentTool {
  const definition: Anthropic.Tool = {
    name,
    description: info.description ?? `${info.name} (from ${server.name})`,
    input_schema: info.inputSchema,
  };
  return { definition, run: (input, call) => sessions.call(server, info.name, input, call) };
}
