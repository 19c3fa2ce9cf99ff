import { type AppDistribution, issueLines, type Platform, type TenantDirectory } from "@resident/core";
import {
  InvalidInputError,
  newWorkspaceSchema,
  type TenantRegistry,
  type WorkspaceRecord,
  workspaceChangeSchema,
} from "@resident/tenants";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { PlatformSet } from "../../platform-set.ts";
import { CredentialsRejectedError, connectFailure } from "./errors.ts";
import { tenantParams, workspaceParams } from "./params.ts";

export interface WorkspaceRoutesOptions {
  registry: TenantRegistry;
  platforms: PlatformSet;
  /** Opens a workspace's stored credentials, for testing the connection. */
  directory: TenantDirectory;
  /** An installed workspace's events arrive at its app's one URL, not at one of its own. */
  distributions: ReadonlyMap<string, AppDistribution>;
  publicUrl: string;
}

/** `…/workspaces`: credentials go in, are checked with the platform, and never come out. */
export const workspaceRoutes: FastifyPluginAsyncZod<WorkspaceRoutesOptions> = async (app, options) => {
  const { registry, platforms, directory, distributions, publicUrl } = options;
  const { adapters } = platforms;
  const create = newWorkspaceSchema(platforms.ids);
  const view = (record: WorkspaceRecord) => {
    const app = record.installed ? distributions.get(record.platform) : undefined;
    const path = app?.eventsPath ?? platforms.webhookPath(record.platform, record.id);
    // An installed workspace's clicks would be signed with the app's secret, which no per-workspace endpoint checks.
    const interactionPath = app ? undefined : platforms.interactionPath(record.platform, record.id);
    const interactions = interactionPath && { interactionPath, interactionUrl: `${publicUrl}${interactionPath}` };
    return { ...record, webhookPath: path, webhookUrl: `${publicUrl}${path}`, ...interactions };
  };
  const notFound = { error: "not found" };

  /** Checks credentials against the platform's schema, then with the platform itself: the bot's identity. */
  const connect = async (platform: Platform, given: Record<string, unknown>) => {
    const adapter = adapters.get(platform);
    const descriptor = platforms.descriptor(platform);
    if (!adapter || !descriptor) throw new InvalidInputError([`platform: ${platform} is not enabled`]);
    const parsed = descriptor.credentialsSchema.safeParse(given);
    if (!parsed.success) {
      throw new InvalidInputError(issueLines(parsed.error, "credentials"));
    }
    try {
      return { credentials: parsed.data as Record<string, unknown>, identity: await adapter.connect(parsed.data) };
    } catch (error) {
      throw new CredentialsRejectedError(connectFailure(platform, error, parsed.data));
    }
  };

  app.get("/", { schema: { params: tenantParams } }, async (request) => {
    const { tenantId } = request.params;
    return (await registry.listWorkspaces(request.principal, tenantId)).map(view);
  });

  app.post("/", { schema: { params: tenantParams, body: create } }, async (request, reply) => {
    const { tenantId } = request.params;
    const { body } = request;
    if (!(await registry.getTenant(request.principal, tenantId))) return reply.code(404).send(notFound);
    const checked = await connect(body.platform, body.credentials);
    const record = await registry.createWorkspace(request.principal, tenantId, { ...body, ...checked });
    return reply.code(201).send(view(record));
  });

  app.get("/:workspaceId", { schema: { params: workspaceParams } }, async (request, reply) => {
    const { tenantId, workspaceId } = request.params;
    const record = await registry.getWorkspace(request.principal, tenantId, workspaceId);
    return record ? view(record) : reply.code(404).send(notFound);
  });

  app.patch(
    "/:workspaceId",
    { schema: { params: workspaceParams, body: workspaceChangeSchema } },
    async (request, reply) => {
      const { tenantId, workspaceId } = request.params;
      const patch = request.body;
      const current = await registry.getWorkspace(request.principal, tenantId, workspaceId);
      if (!current) return reply.code(404).send(notFound);
      const checked = patch.credentials ? await connect(current.platform, patch.credentials) : {};
      const record = await registry.updateWorkspace(request.principal, tenantId, workspaceId, { ...patch, ...checked });
      return record ? view(record) : reply.code(404).send(notFound);
    },
  );

  app.delete("/:workspaceId", { schema: { params: workspaceParams } }, async (request, reply) => {
    const { tenantId, workspaceId } = request.params;
    const deleted = await registry.deleteWorkspace(request.principal, tenantId, workspaceId);
    return deleted ? reply.code(204).send() : reply.code(404).send(notFound);
  });

  /** Runs the platform's connection check with the stored credentials: the platform's own answer, never a secret. */
  app.post("/:workspaceId/test-connection", { schema: { params: workspaceParams } }, async (request, reply) => {
    const { tenantId, workspaceId } = request.params;
    const record = await registry.getWorkspace(request.principal, tenantId, workspaceId);
    const adapter = record && adapters.get(record.platform);
    const workspace = adapter && (await directory.workspace(workspaceId));
    if (!record || !adapter || !workspace) return reply.code(404).send(notFound);
    try {
      return { ok: true, identity: await adapter.connect(workspace.credentials) };
    } catch (error) {
      return { ok: false, ...connectFailure(record.platform, error, workspace.credentials) };
    }
  });
};
