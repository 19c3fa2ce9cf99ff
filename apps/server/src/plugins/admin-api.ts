import type {
  AppDistribution,
  BudgetGuard,
  FeedbackLedger,
  ReceiverSlots,
  StatsStore,
  TenantDirectory,
} from "@resident/core";
import type { RedisClient } from "@resident/store";
import {
  type AdminTokens,
  type BudgetRegistry,
  type TenantRegistry,
  type ToolServerRegistry,
  tenantInputSchema,
  tenantPatchSchema,
} from "@resident/tenants";
import type { FastifyPluginAsyncZod, ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { PlatformSet } from "../platform-set.ts";
import { budgetRoutes } from "./admin/budget-routes.ts";
import { connectionRoutes } from "./admin/connection-routes.ts";
import { answerAdminError } from "./admin/errors.ts";
import { feedbackRoutes } from "./admin/feedback-routes.ts";
import { installRoutes } from "./admin/install-routes.ts";
import { tenantParams } from "./admin/params.ts";
import { statsRoutes } from "./admin/stats-routes.ts";
import { tokenRoutes } from "./admin/token-routes.ts";
import { toolServerRoutes } from "./admin/tool-server-routes.ts";
import { workspaceRoutes } from "./admin/workspace-routes.ts";
import { type FailedSignInLimit, useAdminAuth } from "./admin-auth.ts";
import { useZodValidation } from "./zod-validation.ts";

export interface AdminApiOptions {
  registry: TenantRegistry;
  tokens: AdminTokens;
  /** The MCP servers attached to workspaces. */
  toolServers: ToolServerRegistry;
  platforms: PlatformSet;
  /** Opens a workspace's stored credentials, for testing the connection. */
  directory: TenantDirectory;
  stats: StatsStore;
  budgets: BudgetRegistry;
  /** Reads token use per day against the budgets. */
  budgetGuard: BudgetGuard;
  /** Where receiver connections are held (Socket Mode), for the console. */
  receiverSlots: ReceiverSlots;
  /** The operator's apps that tenants install (an "Add to …" button). */
  distributions: ReadonlyMap<string, AppDistribution>;
  /** The votes on answers, per workspace and day. */
  feedback: FeedbackLedger;
  publicUrl: string;
  /** Default: 10 failures a minute per client address and per token start, then 1 s per attempt. */
  failedSignIns?: FailedSignInLimit;
  /** The shared Redis, where failed sign-ins are counted cluster-wide. */
  redis?: RedisClient;
}

/** `…/audit?before=<id>&limit=<n>`: a page of entries older than the entry `before`; the registry checks the values. */
const auditQuery = z.object({ before: z.string().optional(), limit: z.coerce.number().optional() });

/**
 * `/admin/api/*`: tenants, tenant admin tokens, workspaces and stats (DESIGN.md's contract), and what the admin
 * console needs besides: who is signed in, the platforms' guides, activity, series, a connection test. The bearer
 * token decides who is calling. Everything under `/tenants/:tenantId` lives in one scope whose hook tells a tenant
 * admin that another tenant does not exist (404, not 403: no existence leaks); the registry checks again.
 */
export const adminApi: FastifyPluginAsyncZod<AdminApiOptions> = async (app, options) => {
  const { registry, tokens, platforms, directory, stats, publicUrl } = options;
  useZodValidation(app);
  await useAdminAuth(app, {
    tokens,
    failedSignIns: options.failedSignIns ?? { max: 10, windowMs: 60_000, slowdownMs: 1_000 },
    redis: options.redis,
  });
  app.setErrorHandler(answerAdminError);

  app.get("/me", async (request) => {
    const { principal } = request;
    if (principal.role === "operator") return { role: "operator" };
    const tenant = await registry.getTenant(principal, principal.tenantId);
    return {
      role: "tenant",
      tenantId: principal.tenantId,
      tenantName: tenant?.name,
      tokenId: principal.tokenId,
      mayIssueTokens: tenant?.adminsMayIssueTokens ?? false,
    };
  });

  app.get("/platforms", async () =>
    platforms.descriptors.map(({ id, defaultFailMode, guide }) => ({
      platform: id,
      defaultFailMode,
      installable: options.distributions.has(id),
      ...guide,
    })),
  );

  app.post("/tenants", { schema: { body: tenantInputSchema } }, async (request, reply) => {
    const tenant = await registry.createTenant(request.principal, request.body);
    return reply.code(201).send(tenant);
  });

  app.get("/tenants", async (request) => registry.listTenants(request.principal));

  await app.register(
    async (scope) => {
      const tenant = scope.withTypeProvider<ZodTypeProvider>();
      // Before validation: another tenant's paths are 404 whatever the body, so no answer tells them apart.
      tenant.addHook("preValidation", async (request, reply) => {
        const { principal } = request;
        const params = tenantParams.safeParse(request.params);
        if (principal.role === "tenant" && (!params.success || principal.tenantId !== params.data.tenantId)) {
          return reply.code(404).send({ error: "not found" });
        }
      });

      tenant.get("/", { schema: { params: tenantParams } }, async (request, reply) => {
        const { tenantId } = request.params;
        return (await registry.getTenant(request.principal, tenantId)) ?? reply.code(404).send({ error: "not found" });
      });

      tenant.patch("/", { schema: { params: tenantParams, body: tenantPatchSchema } }, async (request, reply) => {
        const { tenantId } = request.params;
        const updated = await registry.updateTenant(request.principal, tenantId, request.body);
        return updated ?? reply.code(404).send({ error: "not found" });
      });

      tenant.get("/audit", { schema: { params: tenantParams, querystring: auditQuery } }, async (request) => {
        const { tenantId } = request.params;
        const { before, limit } = request.query;
        return registry.listAudit(request.principal, { tenantId, before, limit });
      });

      await tenant.register(tokenRoutes, { prefix: "/tokens", tokens });
      await tenant.register(workspaceRoutes, {
        prefix: "/workspaces",
        registry,
        platforms,
        directory,
        distributions: options.distributions,
        publicUrl,
      });
      await tenant.register(statsRoutes, { registry, stats });
      await tenant.register(feedbackRoutes, { registry, feedback: options.feedback });
      await tenant.register(toolServerRoutes, {
        prefix: "/workspaces/:workspaceId/tool-servers",
        toolServers: options.toolServers,
        directory,
      });
      await tenant.register(budgetRoutes, { budgets: options.budgets, guard: options.budgetGuard });
      await tenant.register(installRoutes, { distributions: options.distributions });
      await tenant.register(connectionRoutes, {
        prefix: "/workspaces",
        registry,
        platforms,
        distributions: options.distributions,
        slots: options.receiverSlots,
      });
    },
    { prefix: "/tenants/:tenantId" },
  );
};
