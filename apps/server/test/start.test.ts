import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AdminClient } from "@resident/testkit";
import { type RunningInstance, startInstance } from "@resident/testkit/processes";
import { afterAll, describe, expect, it } from "vitest";

describe("npm start on embedded defaults", () => {
  let dataDir: string;
  const running: RunningInstance[] = [];
  afterAll(async () => {
    await Promise.all(running.map((instance) => instance.stop()));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("serves with no Redis, no PostgreSQL and no API key, and prints the operator token once", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "resident-start-"));
    const first = await startInstance("fresh", { DATA_DIR: dataDir });
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
    await new AdminClient(first.url, token as string).expect(201, "POST", "/tenants", { name: "first tenant" });
    await first.stop();

    const second = await startInstance("restarted", { DATA_DIR: dataDir });
    running.push(second);
    expect(second.process.log()).not.toContain("Operator token");
    const tenants = await new AdminClient(second.url, token as string).expect<{ name: string }[]>(
      200,
      "GET",
      "/tenants",
    );
    expect(tenants.map((t) => t.name)).toEqual(["first tenant"]);
  }, 90_000);
});
