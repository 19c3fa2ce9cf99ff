/**
 * The bare fastify app the baseline and the floor share: the service's own fastify, logging off, reading the Slack
 * webhook's body as bytes exactly as the real webhook scope does (apps/server/src/plugins/webhooks.ts), so that what
 * either adds to the bare route is its handler alone, not the HTTP stack. Plain JavaScript, run under node alone as
 * the service's build is.
 */
import Fastify from "fastify";

/** The app with `handler` on the Slack webhook's path and a health check for the bench to wait on. */
export function bareApp(handler) {
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
  app.post("/slack/events/:workspaceId", handler);
  app.get("/healthz", async () => ({ ok: true }));
  return app;
}

/** Listens on loopback at `PORT` until SIGTERM or SIGINT, which close the app (and its onClose hooks) and exit. */
export async function serve(app) {
  await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
  for (const signal of ["SIGTERM", "SIGINT"]) {
    process.once(signal, () => {
      void app.close().then(() => process.exit(0));
    });
  }
}
