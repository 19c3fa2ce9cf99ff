import {
  emptyCounts,
  failureSummary,
  InvalidCredentialsError,
  type Platform,
  type PlatformAdapter,
  platforms,
  type StatCounts,
  type StatsStore,
  seriesResolutions,
  statCounters,
  statRanges,
  type TenantDirectory,
  type WorkspaceActivity,
  workspaceSettingsSchema,
} from "@resident/core";
import type { RedisClient } from "@resident/store";
import {
  AccessDeniedError,
  type AdminTokens,
  InvalidInputError,
  type TenantRegistry,
  UnknownTenantError,
  type WorkspaceRecord,
} from "@resident/tenants";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { webhookPath } from "../webhook-paths.ts";
import { type FailedSignInLimit, useAdminAuth } from "./admin-auth.ts";
import { useZodValidation } from "./zod-validation.ts";

export interface AdminApiOptions {
  registry: TenantRegistry;
  tokens: AdminTokens;
  adapters: ReadonlyMap<Platform, PlatformAdapter>;
  /** Opens a workspace's stored credentials, for testing the connection. */
  directory: TenantDirectory;
  stats: StatsStore;
  publicUrl: string;
  /** Default: 10 failures a minute per client address. */
  failedSignIns?: FailedSignInLimit;
  /** The shared Redis, where failed sign-ins are counted cluster-wide. */
  redis?: RedisClient;
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
const seriesQuery = z.object({ range: z.enum(statRanges).default("hour") });
const patchWorkspaceBody = z
  .object({
    name: z.string().optional(),
    credentials: credentials.optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * `/admin/api/*`: tenants, tenant admin tokens, workspaces and stats (DESIGN.md's contract), and what the admin
 * console needs besides: who is signed in, the platforms' guides, activity, series, a connection test. The bearer
 * token decides who is calling; a tenant admin finds nothing of another tenant (404, not 403: no existence leaks).
 * Credentials go in, are checked with the platform, and never come out.
 */
export const adminApi: FastifyPluginAsync<AdminApiOptions> = async (app, options) => {
  const { registry, tokens, adapters, directory, stats, publicUrl } = options;
  useZodValidation(app);
  await useAdminAuth(app, {
    tokens,
    failedSignIns: options.failedSignIns ?? { max: 10, windowMs: 60_000 },
    redis: options.redis,
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
      throw new CredentialsRejectedError(connectFailure(platform, error, parsed.data));
    }
  };

  app.get("/me", async (request) => {
    const { principal } = request;
    if (principal.role === "operator") return { role: "operator" };
    const tenant = await registry.getTenant(principal, principal.tenantId);
    return { role: "tenant", tenantId: principal.tenantId, tenantName: tenant?.name };
  });

  app.get("/platforms", async () =>
    [...adapters.values()].map(({ platform, defaultFailMode, guide }) => ({ platform, defaultFailMode, ...guide })),
  );

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
    const [workspaces, activity] = await Promise.all([stats.read(tenantId), stats.activity(tenantId)]);
    const totals = emptyCounts();
    for (const counts of Object.values(workspaces))
      for (const counter of statCounters) totals[counter] += counts[counter];
    return {
      tenantId,
      totals,
      workspaces,
      activity: Object.fromEntries(Object.entries(activity).map(([id, moments]) => [id, activityView(moments)])),
    } satisfies { tenantId: string; totals: StatCounts; workspaces: object; activity: object };
  });

  app.get(
    "/tenants/:tenantId/workspaces/:workspaceId/series",
    { schema: { params: workspaceParams, querystring: seriesQuery } },
    async (request, reply) => {
      const { tenantId, workspaceId } = request.params as z.infer<typeof workspaceParams>;
      const { range } = request.query as z.infer<typeof seriesQuery>;
      if (!ownTenant(request, reply, tenantId)) return reply;
      if (!(await registry.getWorkspace(request.principal, tenantId, workspaceId))) return notFound(reply);
      const points = await stats.series(tenantId, workspaceId, range);
      return {
        range,
        bucketSeconds: seriesResolutions[range].bucketMs / 1000,
        points: points.map(({ at, counts }) => ({ at: new Date(at).toISOString(), counts })),
      };
    },
  );

  /** Runs the platform's connection check with the stored credentials: the platform's own answer, never a secret. */
  app.post(
    "/tenants/:tenantId/workspaces/:workspaceId/test-connection",
    { schema: { params: workspaceParams } },
    async (request, reply) => {
      const { tenantId, workspaceId } = request.params as z.infer<typeof workspaceParams>;
      if (!ownTenant(request, reply, tenantId)) return reply;
      const record = await registry.getWorkspace(request.principal, tenantId, workspaceId);
      const adapter = record && adapters.get(record.platform);
      const workspace = adapter && (await directory.workspace(workspaceId));
      if (!record || !adapter || !workspace) return notFound(reply);
      try {
        return { ok: true, identity: await adapter.connect(workspace.credentials) };
      } catch (error) {
        return { ok: false, error: connectFailure(record.platform, error, workspace.credentials) };
      }
    },
  );

  app.get("/tenants/:tenantId/audit", { schema: { params: tenantParams } }, async (request, reply) => {
    const { tenantId } = request.params as z.infer<typeof tenantParams>;
    if (!ownTenant(request, reply, tenantId)) return reply;
    return registry.listAudit(request.principal, { tenantId, limit: 200 });
  });
};

function connectFailure(platform: Platform, error: unknown, credentials: unknown): string {
  const reason = error instanceof InvalidCredentialsError ? "refused these credentials" : "could not be reached";
  return `${platform} ${reason}: ${failureSummary(error, credentials)}`;
}

/** Moments as ISO timestamps, like every other time the admin API answers with. */
function activityView({ lastEventAt, lastReplyAt, lastError }: WorkspaceActivity) {
  const iso = (at?: number) => (at === undefined ? undefined : new Date(at).toISOString());
  return {
    lastEventAt: iso(lastEventAt),
    lastReplyAt: iso(lastReplyAt),
    lastError: lastError && { ...lastError, at: iso(lastError.at) },
  };
}
