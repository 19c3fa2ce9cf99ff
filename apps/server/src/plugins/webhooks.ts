import type { AppDistribution, InboundRequest, Ingest, IngestResponse, PlatformDescriptor } from "@resident/core";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";

export interface WebhookOptions {
  ingest: Ingest;
  platforms: readonly PlatformDescriptor[];
  /** The operator's distributed apps: each has one URL for the deliveries of all its installations. */
  distributions: ReadonlyMap<string, AppDistribution>;
}

type Delivery = { Body: Buffer | undefined; Querystring: Record<string, string> };

const inbound = (request: FastifyRequest<Delivery>): InboundRequest => ({
  rawBody: request.body ?? Buffer.alloc(0),
  headers: request.headers,
  query: request.query,
});

const params = {
  type: "object",
  properties: { workspaceId: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" } },
  required: ["workspaceId"],
} as const;

/**
 * The receivers: each hands the raw delivery to the ingest pipeline untouched. Bodies stay bytes in this scope,
 * because signatures cover the exact bytes and a body must not be trusted (or parsed) before it is verified.
 */
export const webhookRoutes: FastifyPluginAsync<WebhookOptions> = async (app, { ingest, platforms, distributions }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  for (const { id, webhookPath } of platforms) {
    app.post<Delivery & { Params: { workspaceId: string } }>(
      `${webhookPath}/:workspaceId`,
      { schema: { params }, logLevel: "warn" },
      async (request, reply) => answer(reply, await ingest.handle(id, request.params.workspaceId, inbound(request))),
    );
  }
  for (const [id, distribution] of distributions) {
    app.post<Delivery>(distribution.eventsPath, { logLevel: "warn" }, async (request, reply) =>
      answer(reply, await ingest.handleApp(id, distribution, inbound(request))),
    );
  }
};

function answer(reply: FastifyReply, response: IngestResponse) {
  return reply
    .code(response.status)
    .headers(response.headers ?? {})
    .send(response.body);
}
