import type { ReceiverSlots } from "@resident/core";
import type { TenantRegistry } from "@resident/tenants";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { PlatformSet } from "../../platform-set.ts";
import { workspaceParams } from "./params.ts";

export interface ConnectionRoutesOptions {
  registry: TenantRegistry;
  platforms: PlatformSet;
  slots: ReceiverSlots;
}

/**
 * `…/workspaces/:workspaceId/connections`: whether the workspace takes its events over connections its platform's
 * receiver keeps open, and the ones the cluster holds open for it now: slot, instance, state, since when.
 */
export const connectionRoutes: FastifyPluginAsyncZod<ConnectionRoutesOptions> = async (app, options) => {
  const { registry, platforms, slots } = options;
  app.get("/:workspaceId/connections", { schema: { params: workspaceParams } }, async (request, reply) => {
    const { tenantId, workspaceId } = request.params;
    const record = await registry.getWorkspace(request.principal, tenantId, workspaceId);
    if (!record) return reply.code(404).send({ error: "not found" });
    const receiver = platforms.receivers.get(record.platform);
    const receiving = receiver !== undefined && record.credentialFields.includes(receiver.credentialField);
    return { receiving, connections: receiving ? await slots.held(workspaceId) : [] };
  });
};
