import type { AppDistribution } from "@resident/core";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantParams } from "./params.ts";

export interface InstallRoutesOptions {
  distributions: ReadonlyMap<string, AppDistribution>;
}

const installParams = tenantParams.extend({ platform: z.string().regex(/^[a-z0-9]{1,32}$/) });

/**
 * `POST …/installs/:platform`: begins an install of the operator's app (its "Add to …" button) for this tenant, by whoever
 * is signed in. Answers the platform's authorize URL for the browser to go to, and sets the cookie that ties the
 * install's state to this browser; the state itself is bound to the tenant and the admin token in the store.
 */
export const installRoutes: FastifyPluginAsyncZod<InstallRoutesOptions> = async (app, { distributions }) => {
  app.post("/installs/:platform", { schema: { params: installParams } }, async (request, reply) => {
    const { tenantId, platform } = request.params;
    const distribution = distributions.get(platform);
    if (!distribution) return reply.code(404).send({ error: `no ${platform} app is configured for installs` });
    const { principal } = request;
    const tokenId = principal.role === "tenant" ? principal.tokenId : undefined;
    const { url, setCookie } = await distribution.beginInstall({ tenantId, ...(tokenId ? { tokenId } : {}) });
    return reply.header("set-cookie", setCookie).header("cache-control", "no-store").send({ url });
  });
};
