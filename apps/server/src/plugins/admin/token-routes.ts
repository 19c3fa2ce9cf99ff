import { plainText } from "@resident/core";
import type { AdminTokens } from "@resident/tenants";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { tenantParams } from "./params.ts";

export interface TokenRoutesOptions {
  tokens: AdminTokens;
}

const tokenParams = tenantParams.extend({ tokenId: z.string().regex(/^tk_[A-Za-z0-9_-]{22}$/) });
/** Optional, so DESIGN.md's bodiless `POST …/tokens` still issues one; the registry checks the values. */
const issueBody = z.object({ name: plainText().optional(), expiresAt: z.string().optional() }).strict().nullish();

/**
 * `…/tokens`: a tenant's admin tokens. Issuing answers the secret once (`token`, as DESIGN.md has it) with the
 * token's record; listing never shows a secret; revoking takes effect on the next request to any instance.
 */
export const tokenRoutes: FastifyPluginAsyncZod<TokenRoutesOptions> = async (app, { tokens }) => {
  app.get("/", { schema: { params: tenantParams } }, async (request) => {
    const { tenantId } = request.params;
    return tokens.list(request.principal, tenantId);
  });

  app.post("/", { schema: { params: tenantParams, body: issueBody } }, async (request, reply) => {
    const { tenantId } = request.params;
    const issued = await tokens.issue(request.principal, tenantId, request.body ?? {});
    return reply.code(201).send(issued);
  });

  app.delete("/:tokenId", { schema: { params: tokenParams } }, async (request, reply) => {
    const { tenantId, tokenId } = request.params;
    const revoked = await tokens.revoke(request.principal, tenantId, tokenId);
    return revoked ? reply.code(204).send() : reply.code(404).send({ error: "not found" });
  });
};
