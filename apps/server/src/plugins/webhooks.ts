import type { Ingest, PlatformDescriptor } from "@resident/core";
import type { FastifyPluginAsync } from "fastify";

export interface WebhookOptions {
  ingest: Ingest;
  platforms: readonly PlatformDescriptor[];
}

const params = {
  type: "object",
  properties: { workspaceId: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" } },
  required: ["workspaceId"],
} as const;

/**
 * The receivers, a webhook per platform and an interactions endpoint where its descriptor names one: each hands the
 * raw delivery to the ingest pipeline untouched. Bodies stay bytes in this scope,
 * because signatures cover the exact bytes and a body must not be trusted (or parsed) before it is verified.
 */
export const webhookRoutes: FastifyPluginAsync<WebhookOptions> = async (app, { ingest, platforms }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  const routes = platforms.flatMap(({ id, webhookPath, interactionPath }) => [
    { id, path: webhookPath, endpoint: undefined },
    ...(interactionPath ? [{ id, path: interactionPath, endpoint: "interactions" as const }] : []),
  ]);
  for (const { id, path, endpoint } of routes) {
    app.post<{ Params: { workspaceId: string }; Body: Buffer | undefined; Querystring: Record<string, string> }>(
      `${path}/:workspaceId`,
      { schema: { params }, logLevel: "warn" },
      async (request, reply) => {
        const response = await ingest.handle(id, request.params.workspaceId, {
          rawBody: request.body ?? Buffer.alloc(0),
          headers: request.headers,
          query: request.query,
          ...(endpoint ? { endpoint } : {}),
        });
        return reply
          .code(response.status)
          .headers(response.headers ?? {})
          .send(response.body);
      },
    );
  }
};
