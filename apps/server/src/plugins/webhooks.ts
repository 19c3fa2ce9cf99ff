import type { AppDistribution, InboundRequest, Ingest, IngestResponse, PlatformDescriptor } from "@resident/core";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";

export interface WebhookOptions {
  ingest: Ingest;
  platforms: readonly PlatformDescriptor[];
  /** The operator's distributed apps: each has one URL for the deliveries of all its installations. */
  distributions: ReadonlyMap<string, AppDistribution>;
}

type Delivery = { Body: Buffer | undefined; Querystring: Record<string, string> };

/** Every delivery in one object shape (`endpoint` undefined at a webhook): the ack path reads it on every request. */
const inbound = (request: FastifyRequest<Delivery>, endpoint?: InboundRequest["endpoint"]): InboundRequest => ({
  rawBody: request.body ?? Buffer.alloc(0),
  headers: request.headers,
  query: request.query,
  endpoint,
});

/**
 * The receivers, a webhook per platform and an interactions endpoint where its descriptor names one: each hands the
 * raw delivery to the ingest pipeline untouched. Bodies stay bytes in this scope,
 * because signatures cover the exact bytes and a body must not be trusted (or parsed) before it is verified. The
 * workspace id needs no schema of its own: the directory turns away an id of the wrong shape as unknown (404)
 * without a lookup, so a route schema would only check it twice on every delivery.
 */
export const webhookRoutes: FastifyPluginAsync<WebhookOptions> = async (app, { ingest, platforms, distributions }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  const routes = platforms.flatMap(({ id, webhookPath, interactionPath }) => [
    { id, path: webhookPath, endpoint: undefined },
    ...(interactionPath ? [{ id, path: interactionPath, endpoint: "interactions" as const }] : []),
  ]);
  for (const { id, path, endpoint } of routes) {
    app.post<Delivery & { Params: { workspaceId: string } }>(
      `${path}/:workspaceId`,
      { logLevel: "warn" },
      async (request, reply) =>
        answer(reply, await ingest.handle(id, request.params.workspaceId, inbound(request, endpoint))),
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
