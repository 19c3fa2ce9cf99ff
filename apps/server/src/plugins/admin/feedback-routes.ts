import type { FeedbackLedger } from "@resident/core";
import type { TenantRegistry } from "@resident/tenants";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { workspaceParams } from "./params.ts";

export interface FeedbackRoutesOptions {
  registry: TenantRegistry;
  feedback: FeedbackLedger;
}

/** Up to three months of days; the console asks for the last week. */
const feedbackQuery = z.object({ days: z.coerce.number().int().min(1).max(90).default(7) });

/**
 * `GET /workspaces/:workspaceId/feedback?days=`: the votes on a workspace's answers (their feedback buttons), per UTC
 * day, from the database every instance shares, so every instance answers the same counts.
 */
export const feedbackRoutes: FastifyPluginAsyncZod<FeedbackRoutesOptions> = async (app, { registry, feedback }) => {
  app.get(
    "/workspaces/:workspaceId/feedback",
    { schema: { params: workspaceParams, querystring: feedbackQuery } },
    async (request, reply) => {
      const { tenantId, workspaceId } = request.params;
      if (!(await registry.getWorkspace(request.principal, tenantId, workspaceId))) {
        return reply.code(404).send({ error: "not found" });
      }
      return { workspaceId, days: await feedback.daily(workspaceId, request.query.days, Date.now()) };
    },
  );
};
