/**
 * The benchmark's no-op baseline: a bare fastify app (the service's own fastify, logging off) whose only route is the
 * Slack webhook's path, answering 200 at once. It reads the body as bytes exactly as the real webhook scope does
 * (apps/server/src/plugins/webhooks.ts), so the difference from the real path is the pipeline and the app's hooks,
 * not the HTTP stack. `PORT` names the loopback port; run by infra/bench/run.ts, three of these behind nginx. Plain
 * JavaScript, so that it runs under node alone, as the service's build does.
 */
import Fastify from "fastify";

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
app.post("/slack/events/:workspaceId", async (_request, reply) => reply.code(200).send({ ok: true }));
app.get("/healthz", async () => ({ ok: true }));

await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
