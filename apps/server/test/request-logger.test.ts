import Fastify from "fastify";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { loggerOptions } from "../src/logger.ts";
import { requestLoggers } from "../src/request-logger.ts";

/** A service logger at `level` writing into `lines`, counting the pino children made of it. */
function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const made = { children: 0 };
  const logger = pino(
    {
      ...loggerOptions(level, "i-1"),
      onChild: () => {
        made.children++;
      },
    },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  const app = Fastify({ loggerInstance: logger, childLoggerFactory: requestLoggers });
  app.post("/quiet", { logLevel: "warn" }, async () => ({ ok: true }));
  app.post("/loud", { logLevel: "warn" }, async (request) => {
    request.log.info({ token: "xoxb-secret" }, "below the route's level");
    request.log.warn({ token: "xoxb-secret" }, "at the route's level");
    return { ok: true };
  });
  return { app, lines, made };
}

describe("a request's logger", () => {
  it("is never made for a request that writes no line, at the service's level or the route's", async () => {
    for (const level of ["info", "warn"]) {
      const { app, lines, made } = capture(level);
      await app.ready();
      const before = made.children;
      for (let i = 0; i < 5; i++) expect((await app.inject({ method: "POST", url: "/quiet" })).statusCode).toBe(200);
      expect(made.children).toBe(before);
      expect(lines.filter((line) => line.reqId !== undefined)).toEqual([]);
      await app.close();
    }
  });

  it("writes the lines its route's level lets through, with the request's id and the secrets redacted", async () => {
    const { app, lines } = capture("info");
    const answer = await app.inject({ method: "POST", url: "/loud", headers: { "request-id": "r-1" } });
    expect(answer.statusCode).toBe(200);
    const written = lines.filter((line) => line.reqId !== undefined);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ level: 40, msg: "at the route's level", instance: "i-1", token: "[redacted]" });
    await app.close();
  });
});
