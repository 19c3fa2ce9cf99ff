import { emptyCounts, type StatsStore, statCounters, statRanges, type WorkspaceActivity } from "@resident/core";
import { seriesResolutions } from "@resident/store";
import type { TenantRegistry } from "@resident/tenants";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantParams, workspaceParams } from "./params.ts";

export interface StatsRoutesOptions {
  registry: TenantRegistry;
  stats: StatsStore;
}

const seriesQuery = z.object({ range: z.enum(statRanges).default("hour") });

/** The cluster-wide counters of a tenant's workspaces, their latest activity, and each one's series. */
export const statsRoutes: FastifyPluginAsyncZod<StatsRoutesOptions> = async (app, { registry, stats }) => {
  app.get("/stats", { schema: { params: tenantParams } }, async (request, reply) => {
    const { tenantId } = request.params;
    if (!(await registry.getTenant(request.principal, tenantId))) return reply.code(404).send({ error: "not found" });
    const [workspaces, activity] = await Promise.all([stats.read(tenantId), stats.activity(tenantId)]);
    const totals = emptyCounts();
    for (const counts of Object.values(workspaces))
      for (const counter of statCounters) totals[counter] += counts[counter];
    const activityById = Object.entries(activity).map(([id, moments]) => [id, activityView(moments)]);
    return { tenantId, totals, workspaces, activity: Object.fromEntries(activityById) };
  });

  app.get(
    "/workspaces/:workspaceId/series",
    { schema: { params: workspaceParams, querystring: seriesQuery } },
    async (request, reply) => {
      const { tenantId, workspaceId } = request.params;
      const { range } = request.query;
      if (!(await registry.getWorkspace(request.principal, tenantId, workspaceId))) {
        return reply.code(404).send({ error: "not found" });
      }
      const points = await stats.series(tenantId, workspaceId, range);
      return {
        range,
        bucketSeconds: seriesResolutions[range].bucketMs / 1000,
        points: points.map(({ at, counts }) => ({ at: new Date(at).toISOString(), counts })),
      };
    },
  );
};

/** Moments as ISO timestamps, like every other time the admin API answers with. */
function activityView({ lastEventAt, lastReplyAt, lastError }: WorkspaceActivity) {
  const iso = (at?: number) => (at === undefined ? undefined : new Date(at).toISOString());
  return {
    lastEventAt: iso(lastEventAt),
    lastReplyAt: iso(lastReplyAt),
    lastError: lastError && { ...lastError, at: iso(lastError.at) },
  };
}
