import type { AppDistribution, ReceiverSlots } from "@resident/core";
import type { TenantRegistry, WorkspaceRecord } from "@resident/tenants";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { appTargetId } from "../../app-receivers.ts";
import type { PlatformSet } from "../../platform-set.ts";
import { workspaceParams } from "./params.ts";

export interface ConnectionRoutesOptions {
  registry: TenantRegistry;
  platforms: PlatformSet;
  distributions: ReadonlyMap<string, AppDistribution>;
  slots: ReceiverSlots;
}

/**
 * `…/workspaces/:workspaceId/connections`: whether the workspace takes its events over connections its platform's
 * receiver keeps open, and the ones the cluster holds open for it now: slot, instance, state, since when. An
 * installation of the distributed app has no connections of its own: its events come over the app's, shared by
 * every installation, so those are the ones shown (`heldFor: "app"`).
 */
export const connectionRoutes: FastifyPluginAsyncZod<ConnectionRoutesOptions> = async (app, options) => {
  const { registry, platforms, distributions, slots } = options;
  const holder = (record: WorkspaceRecord) => {
    if (record.installed) {
      // A disabled installation takes nothing over the app's connections: none is open for it.
      return !record.disabled && distributions.get(record.platform)?.receiverCredentials
        ? { heldFor: "app" as const, id: appTargetId(record.platform) }
        : undefined;
    }
    const receiver = platforms.receivers.get(record.platform);
    return receiver && record.credentialFields.includes(receiver.credentialField)
      ? { heldFor: "workspace" as const, id: record.id }
      : undefined;
  };
  app.get("/:workspaceId/connections", { schema: { params: workspaceParams } }, async (request, reply) => {
    const { tenantId, workspaceId } = request.params;
    const record = await registry.getWorkspace(request.principal, tenantId, workspaceId);
    if (!record) return reply.code(404).send({ error: "not found" });
    const held = holder(record);
    if (!held) return { receiving: false, heldFor: "workspace" as const, connections: [] };
    return { receiving: true, heldFor: held.heldFor, connections: await slots.held(held.id) };
  });
};
