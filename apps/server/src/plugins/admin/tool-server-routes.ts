import { listMcpTools } from "@resident/agent";
import { failureSummary, type TenantDirectory, type ToolServer } from "@resident/core";
import { type ToolServerRegistry, toolServerInputSchema } from "@resident/tenants";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { CredentialsRejectedError } from "./errors.ts";
import { workspaceParams } from "./params.ts";

export interface ToolServerRoutesOptions {
  toolServers: ToolServerRegistry;
  /** Opens a server's stored auth header, for listing its tools. */
  directory: TenantDirectory;
}

const serverParams = workspaceParams.extend({ serverId: z.string().regex(/^mcp_[A-Za-z0-9_-]{22}$/) });
const listTimeoutMs = 10_000;

/** The tools a server lists, as the console shows them; a failure in the server's words, never its auth header. */
async function toolsOf(server: ToolServer) {
  try {
    const tools = await listMcpTools(server, listTimeoutMs);
    return { ok: true as const, tools: tools.map(({ name, description }) => ({ name, description })) };
  } catch (error) {
    return { ok: false as const, error: failureSummary(error, server.authHeader) };
  }
}

/**
 * `…/workspaces/:workspaceId/tool-servers`: MCP servers the agent may call. A server is attached only once it answers
 * `tools/list`; its auth header goes in and never comes out.
 */
export const toolServerRoutes: FastifyPluginAsyncZod<ToolServerRoutesOptions> = async (app, options) => {
  const { toolServers, directory } = options;
  const notFound = { error: "not found" };

  app.get("/", { schema: { params: workspaceParams } }, async (request, reply) => {
    const { tenantId, workspaceId } = request.params;
    return (await toolServers.list(request.principal, tenantId, workspaceId)) ?? reply.code(404).send(notFound);
  });

  app.post("/", { schema: { params: workspaceParams, body: toolServerInputSchema } }, async (request, reply) => {
    const { tenantId, workspaceId } = request.params;
    const { body } = request;
    if (!(await toolServers.list(request.principal, tenantId, workspaceId))) return reply.code(404).send(notFound);
    const listed = await toolsOf({ id: "new", updatedAt: "", ...body });
    if (!listed.ok) {
      const error = `the MCP server could not be reached or did not list its tools: ${listed.error}`;
      throw new CredentialsRejectedError({ error, reason: "unreachable", detail: listed.error });
    }
    const record = await toolServers.attach(request.principal, tenantId, workspaceId, body);
    return record ? reply.code(201).send({ ...record, tools: listed.tools }) : reply.code(404).send(notFound);
  });

  app.get("/:serverId/tools", { schema: { params: serverParams } }, async (request, reply) => {
    const { tenantId, workspaceId, serverId } = request.params;
    const attached = await toolServers.list(request.principal, tenantId, workspaceId);
    const workspace = attached?.some((server) => server.id === serverId) && (await directory.workspace(workspaceId));
    const server = workspace ? workspace.toolServers?.find((candidate) => candidate.id === serverId) : undefined;
    return server ? toolsOf(server) : reply.code(404).send(notFound);
  });

  app.delete("/:serverId", { schema: { params: serverParams } }, async (request, reply) => {
    const { tenantId, workspaceId, serverId } = request.params;
    const detached = await toolServers.detach(request.principal, tenantId, workspaceId, serverId);
    return detached ? reply.code(204).send() : reply.code(404).send(notFound);
  });
};
