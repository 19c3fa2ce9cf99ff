import {
  emptyCounts,
  InvalidCredentialsError,
  type Platform,
  type PlatformAdapter,
  platforms,
  type StatCounts,
  type StatsStore,
  statCounters,
  workspaceSettingsSchema,
} from "@resident/core";
import {
  AccessDeniedError,
  type AdminTokens,
  InvalidInputError,
  type Principal,
  type TenantRegistry,
  UnknownTenantError,
  type WorkspaceRecord,
} from "@resident/tenants";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { webhookPath } from "../webhook-paths.ts";
import { useZodValidation } from "./zod-validation.ts";

export interface AdminApiOptions {
  registry: TenantRegistry;
  tokens: AdminTokens;
  adapters: ReadonlyMap<Platform, PlatformAdapter>;
  stats: StatsStore;
  publicUrl: string;
}

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** The platform refused, or could not check, the credentials given for a workspace. → 422 */
class CredentialsRejectedError extends Error {
  override name = "CredentialsRejectedError";
}

const id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const tenantParams = z.object({ tenantId: id });
const workspaceParams = z.object({ tenantId: id, workspaceId: id });
const credentials = z.record(z.string(), z.unknown());
const createWorkspaceBody = z.object({
  platform: z.enum(platforms),
  name: z.string(),
  credentials,
  settings: workspaceSettingsSchema.optional(),
});
const patchWorkspaceBody = z
  .object({
    name: z.string().optional(),
    credentials: credentials.optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * `/admin/api/*`: tenants, tenant admin tokens, workspaces and stats (DESIGN.md's contract). The bearer token
 * decides who is calling; a tenant admin finds nothing of another tenant (404, not 403: no existence leaks).
 * Credentials go in, are checked with the platform, and never come out.
 */
export const adminApi: FastifyPluginAsync<AdminApiOptions> = async (app, options) => {
  const { registry, tokens, adapters, stats, publicUrl } = options;
  useZodValidation(app);
  app.decorateRequest("principal");

  app.addHook("onRequest", async (request, reply) => {
    const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? "")?.[1];
    const principal = bearer ? await tokens.authenticate(bearer) : undefined;
    if (!principal) {
      return reply
        .code(401)
        .header("www-authenticate", 'Bearer realm="resident admin"')
        .send({ error: "a valid admin token is required" });
    }
    request.principal = principal;
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof InvalidInputError)
      return reply.code(400).send({ error: "invalid input", issues: error.issues });
    if (error instanceof UnknownTenantError) return reply.code(404).send({ error: "not found" });
    if (error instanceof AccessDeniedError) return reply.code(403).send({ error: error.message });
    if (error instanceof CredentialsRejectedError) return reply.code(422).send({ error: error.message });
    if ((error as { validation?: unknown }).validation || (error as { statusCode?: number }).statusCode === 400) {
      return reply.code(400).send({ error: "invalid input", issues: [(error as Error).message] });
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status && status < 500) return reply.code(status).send({ error: (error as Error).message });
    request.log.error({ err: error }, "admin API failure");
    return reply.code(500).send({ error: "internal error" });
  });

  const view = (record: WorkspaceRecord) => {
    const path = webhookPath(record.platform, record.id);
    return { ...record, webhookPath: path, webhookUrl: `${publicUrl}${path}` };
  };
  /** A tenant admin asking about another tenant is told it does not exist. */
  const ownTenant = (request: FastifyRequest, reply: FastifyReply, tenantId: string) => {
    const { principal } = request;
    if (principal.role === "tenant" && principal.tenantId !== tenantId) {
      reply.code(404).send({ error: "not found" });
      return false;
    }
    return true;
  };
  const notFound = (reply: FastifyReply) => reply.code(404).send({ error: "not found" });

  /** Checks credentials against the platform's schema, then with the platform itself: the bot's identity. */
  const connect = async (platform: Platform, given: Record<string, unknown>) => {
    const adapter = adapters.get(platform);
    if (!adapter) throw new InvalidInputError([`platform: ${platform} is not enabled`]);
    const parsed = adapter.credentialsSchema.safeParse(given);
    if (!parsed.success) {
      throw new InvalidInputError(
        parsed.error.issues.map((issue) => `credentials.${issue.path.join(".")}: ${issue.message}`),
      );
    }
    try {
      return { credentials: parsed.data as Record<string, unknown>, identity: await adapter.connect(parsed.data) };
    } catch (error) {
      const reason = error instanceof InvalidCredentialsError ? "refused these credentials" : "could not be reached";
      throw new CredentialsRejectedError(`${platform} ${reason}: ${(error as Error).message}`);
    }
  };

  app.post("/tenants", { schema: { body: z.object({ name: z.string() }) } }, async (request, reply) => {
    const tenant = await registry.createTenant(request.principal, request.body as { name: string });
    return reply.code(201).send(tenant);
  });

  app.get("/tenants", async (request) => registry.listTenants(request.principal));

  app.get("/tenants/:tenantId", { schema: { params: tenantParams } }, async (request, reply) => {
    const { tenantId } = request.params as z.infer<typeof tenantParams>;
    if (!ownTenant(request, reply, tenantId)) return reply;
    return (await registry.getTenant(request.principal, tenantId)) ?? notFound(reply);
  });

  app.post("/tenants/:tenantId/tokens", { schema: { params: tenantParams } }, async (request, reply) => {
    const { tenantId } = request.params as z.infer<typeof tenantParams>;
    if (!ownTenant(request, reply, tenantId)) return reply;
    const issued = await tokens.issue(request.principal, tenantId);
    return reply.code(201).send({ token: issued.token, tokenId: issued.tokenId, createdAt: issued.createdAt });
  });

  app.get("/tenants/:tenantId/workspaces", { schema: { params: tenantParams } }, async (request, reply) => {
    const { tenantId } = request.params as z.infer<typeof tenantParams>;
    if (!ownTenant(request, reply, tenantId)) return reply;
    return (await registry.listWorkspaces(request.principal, tenantId)).map(view);
  });

  app.post(
    "/tenants/:tenantId/workspaces",
    { schema: { params: tenantParams, body: createWorkspaceBody } },
    async (request, reply) => {
      const { tenantId } = request.params as z.infer<typeof tenantParams>;
      if (!ownTenant(request, reply, tenantId)) return reply;
      const body = request.body as z.infer<typeof createWorkspaceBody>;
      if (!(await registry.getTenant(request.principal, tenantId))) return notFound(reply);
      const checked = await connect(body.platform, body.credentials);
      const record = await registry.createWorkspace(request.principal, tenantId, { ...body, ...checked });
      return reply.code(201).send(view(record));
    },
  );

  app.get(
    "/tenants/:tenantId/workspaces/:workspaceId",
    { schema: { params: workspaceParams } },
    async (request, reply) => {
      const { tenantId, workspaceId } = request.params as z.infer<typeof workspaceParams>;
      if (!ownTenant(request, reply, tenantId)) return reply;
      const record = await registry.getWorkspace(request.principal, tenantId, workspaceId);
      return record ? view(record) : notFound(reply);
    },
  );

  app.patch(
    "/tenants/:tenantId/workspaces/:workspaceId",
    { schema: { params: workspaceParams, body: patchWorkspaceBody } },
    async (request, reply) => {
      const { tenantId, workspaceId } = request.params as z.infer<typeof workspaceParams>;
      if (!ownTenant(request, reply, tenantId)) return reply;
      const patch = request.body as z.infer<typeof patchWorkspaceBody>;
      const current = await registry.getWorkspace(request.principal, tenantId, workspaceId);
      if (!current) return notFound(reply);
      const checked = patch.credentials ? await connect(current.platform, patch.credentials) : {};
      const record = await registry.updateWorkspace(request.principal, tenantId, workspaceId, { ...patch, ...checked });
      return record ? view(record) : notFound(reply);
    },
  );

  app.delete(
    "/tenants/:tenantId/workspaces/:workspaceId",
    { schema: { params: workspaceParams } },
    async (request, reply) => {
      const { tenantId, workspaceId } = request.params as z.infer<typeof workspaceParams>;
      if (!ownTenant(request, reply, tenantId)) return reply;
      const deleted = await registry.deleteWorkspace(request.principal, tenantId, workspaceId);
      return deleted ? reply.code(204).send() : notFound(reply);
    },
  );

  app.get("/tenants/:tenantId/stats", { schema: { params: tenantParams } }, async (request, reply) => {
    const { tenantId } = request.params as z.infer<typeof tenantParams>;
    if (!ownTenant(request, reply, tenantId)) return reply;
    if (!(await registry.getTenant(request.principal, tenantId))) return notFound(reply);
    const workspaces = await stats.read(tenantId);
    const totals = emptyCounts();
    for (const counts of Object.values(workspaces))
      for (const counter of statCounters) totals[counter] += counts[counter];
    return { tenantId, totals, workspaces } satisfies { tenantId: string; totals: StatCounts; workspaces: object };
  });

  app.get("/tenants/:tenantId/audit", { schema: { params: tenantParams } }, async (request, reply) => {
    const { tenantId } = request.params as z.infer<typeof tenantParams>;
    if (!ownTenant(request, reply, tenantId)) return reply;
    return registry.listAudit(request.principal, { tenantId, limit: 200 });
  });
};
