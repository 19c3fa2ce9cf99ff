import type { AppDistribution, InstallOutcome } from "@resident/core";
import type { FastifyPluginAsync } from "fastify";

export interface InstallCallbackOptions {
  distributions: ReadonlyMap<string, AppDistribution>;
}

/**
 * Where the platform sends the admin's browser back after an install: the distribution checks the state and keeps
 * the installation, then the browser goes to the new workspace's console page — or, refused, is told why on a page
 * of its own, and nothing was kept. Logged at warn only: the URL carries the one-time code and the state.
 */
export const installCallback: FastifyPluginAsync<InstallCallbackOptions> = async (app, { distributions }) => {
  for (const distribution of distributions.values()) {
    app.get(distribution.callbackPath, { logLevel: "warn" }, async (request, reply) => {
      const outcome = await distribution.completeInstall(request.raw, reply.raw);
      if (outcome.ok) {
        return reply.redirect(`/admin/tenants/${outcome.tenantId}/workspaces/${outcome.workspaceId}`, 303);
      }
      request.log.warn({ reason: outcome.reason }, "install refused");
      return reply
        .code(400)
        .type("text/html; charset=utf-8")
        .header("cache-control", "no-store")
        .send(refusal(outcome));
    });
  }
};

function refusal(outcome: Extract<InstallOutcome, { ok: false }>): string {
  const back = outcome.tenantId ? `/admin/tenants/${outcome.tenantId}` : "/admin";
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>Install refused</title>
<main><h1>The install was refused</h1><p>${escapeHtml(outcome.reason)}</p>
<p>Nothing was installed. Begin again from <a href="${back}">the console</a>.</p></main></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
