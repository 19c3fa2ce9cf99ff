import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { AdminApi } from "@resident/admin-api";
import { type RunningInstance, startInstance } from "@resident/testkit/processes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url);

describe("npm start on embedded defaults", () => {
  let dataDir: string;
  // What `npm start` does: build (its prestart), then run the compiled JavaScript with node.
  beforeAll(() => promisify(execFile)("npm", ["run", "build", "--silent"], { cwd: root }), 240_000);
  const running: RunningInstance[] = [];
  afterAll(async () => {
    await Promise.all(running.map((instance) => instance.stop()));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("serves with no Redis, no PostgreSQL and no API key, and prints the operator token once", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "resident-start-"));
    const first = await startInstance("fresh", { DATA_DIR: dataDir }, "build");
    running.push(first);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${first.url}/readyz`)).json()).toEqual({
      ok: true,
      checks: { store: true, database: true },
    });
    const log = first.process.log();
    expect(log).toContain("REDIS_URL is not set");
    expect(log).toContain("ANTHROPIC_API_KEY is not set");
    const token = /Operator token[^\n]*\n\s*\n\s*(rsd_\S+)/.exec(log)?.[1];
    expect(token).toBeDefined();
    await new AdminApi(token as string, first.url).expect(201, "POST", "/tenants", { name: "first tenant" });
    await first.stop();

    const second = await startInstance("restarted", { DATA_DIR: dataDir }, "build");
    running.push(second);
    expect(second.process.log()).not.toContain("Operator token");
    const tenants = await new AdminApi(token as string, second.url).expect<{ name: string }[]>(200, "GET", "/tenants");
    expect(tenants.map((t) => t.name)).toEqual(["first tenant"]);
  }, 90_000);

  it("is node running the compiled entry, here and in the Docker image, with tsx for development only", async () => {
    const { scripts, dependencies = {} } = JSON.parse(await readFile(new URL("package.json", root), "utf8"));
    expect(scripts.start).toBe("node apps/server/dist/main.js");
    expect(scripts.prestart).toMatch(/^npm run build\b/);
    expect(scripts.dev).toMatch(/--import tsx apps\/server\/src\/main\.ts$/);
    expect(Object.keys(dependencies)).not.toContain("tsx");
    const dockerfile = await readFile(new URL("Dockerfile", root), "utf8");
    expect(dockerfile.match(/^CMD .*$/gm)).toEqual(['CMD ["node", "apps/server/dist/main.js"]']);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
  });
});
