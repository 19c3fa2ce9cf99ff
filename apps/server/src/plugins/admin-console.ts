import fastifyStatic from "@fastify/static";
import { ensureConsoleBundle } from "@resident/admin";
import type { FastifyPluginAsync, FastifyReply } from "fastify";

/**
 * The admin console (apps/admin) under this scope's prefix: the bundle's files, and its index.html for every other
 * path, where the console routes in the browser. The bundle is built first if it is missing or older than its
 * sources. Hashed assets are cached for good; the index never, so a new build is picked up at once.
 */
export const adminConsole: FastifyPluginAsync = async (app) => {
  const root = await ensureConsoleBundle({ onBuild: () => app.log.info({}, "building the admin console") });
  await app.register(fastifyStatic, {
    root,
    wildcard: false,
    index: false,
    setHeaders: (reply, path) =>
      reply.header("cache-control", path.includes("/assets/") ? "public, max-age=31536000, immutable" : "no-cache"),
  });
  const index = (reply: FastifyReply) => reply.header("cache-control", "no-cache").sendFile("index.html");
  app.get("/", (_request, reply) => index(reply));
  app.get("/*", (request, reply) =>
    // The admin API's unknown paths are its own 404s, not a page.
    request.url.startsWith("/admin/api/") ? reply.code(404).send({ error: "not found" }) : index(reply),
  );
};
