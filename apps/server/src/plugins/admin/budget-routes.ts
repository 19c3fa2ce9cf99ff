import { type BudgetGuard, budgetSchema } from "@resident/core";
import type { BudgetRegistry } from "@resident/tenants";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { tenantParams, workspaceParams } from "./params.ts";

export interface BudgetRoutesOptions {
  budgets: BudgetRegistry;
  guard: BudgetGuard;
}

/** The days of token use the console charts against the budget. */
const chartedDays = 7;

/**
 * A tenant's budget and its workspaces', with their token use per UTC day: `GET /budgets`. The tenant's budget is
 * the operator's to set (`PUT /budget`), a workspace's its tenant admins' (`PUT /workspaces/:workspaceId/budget`).
 */
export const budgetRoutes: FastifyPluginAsyncZod<BudgetRoutesOptions> = async (app, { budgets, guard }) => {
  app.get("/budgets", { schema: { params: tenantParams } }, async (request, reply) => {
    const { tenantId } = request.params;
    const current = await budgets.read(request.principal, tenantId);
    if (!current) return reply.code(404).send({ error: "not found" });
    const ids = Object.keys(current.workspaces);
    const [tenantUsage, ...workspaceUsage] = await Promise.all([
      guard.usage(tenantId, undefined, chartedDays),
      ...ids.map((id) => guard.usage(tenantId, id, chartedDays)),
    ]);
    return {
      tenantId,
      tenant: { budget: current.tenant, usage: tenantUsage },
      workspaces: ids.map((workspaceId, i) => ({
        workspaceId,
        budget: current.workspaces[workspaceId],
        usage: workspaceUsage[i],
      })),
    };
  });

  app.put("/budget", { schema: { params: tenantParams, body: budgetSchema } }, async (request, reply) => {
    const budget = await budgets.setTenantBudget(request.principal, request.params.tenantId, request.body);
    return budget ?? reply.code(404).send({ error: "not found" });
  });

  app.put(
    "/workspaces/:workspaceId/budget",
    { schema: { params: workspaceParams, body: budgetSchema } },
    async (request, reply) => {
      const { tenantId, workspaceId } = request.params;
      const budget = await budgets.setWorkspaceBudget(request.principal, tenantId, workspaceId, request.body);
      return budget ?? reply.code(404).send({ error: "not found" });
    },
  );
};
