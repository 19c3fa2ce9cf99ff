import { setTimeout as sleep } from "node:timers/promises";
import { MemoryChangeFeed } from "@resident/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenants, openDatabase, type Principal, type Tenants } from "../src/index.ts";
import { type Backend, backends, captureLogger, type Location, newSecretKey, platforms } from "./helpers.ts";

const postgres = backends.find((backend) => backend.concurrentOpens) as Backend;

const operator: Principal = { role: "operator" };

type Creds = {
  signingSecret: string;
  botToken: string;
  botRefreshToken?: string;
};

describe.each(backends)("$name: credentials changed once across instances", (backend) => {
  const opened = openInstances(backend);

  it("10 concurrent changes of one workspace: the first changes it, the others wait and find it changed", async () => {
    const workspace = await newWorkspace(opened.instances[0] as Tenants);
    opened.published.length = 0;
    let refreshes = 0;
    const refresh = async (stored: Creds): Promise<Creds | undefined> => {
      if (stored.botToken !== "xoxe.xoxb-old") return undefined;
      refreshes++;
      await sleep(100);
      return { ...stored, botToken: "xoxe.xoxb-new", botRefreshToken: "xoxe-1-new" };
    };
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        opened.instances[i % opened.instances.length]?.credentials.change(workspace.id, refresh),
      ),
    );
    console.log(`[${backend.name}: 10 concurrent changes] refreshes=${refreshes}`);
    expect(refreshes).toBe(1);
    expect(new Set(results.map((c) => c?.botToken))).toEqual(new Set(["xoxe.xoxb-new"]));
    // Stored sealed, seen by every instance's directory, audited without a value.
    for (const tenants of opened.instances) {
      expect((await tenants.directory.workspace(workspace.id))?.credentials).toMatchObject({
        botToken: "xoxe.xoxb-new",
      });
    }
    expect(opened.published).toContain(workspace.id);
    const [tenants] = opened.instances as [Tenants];
    const [row] = await tenants.sql.query<{ credentials_ciphertext: string }>(
      "select credentials_ciphertext from workspaces where id = $1",
      [workspace.id],
    );
    expect(row?.credentials_ciphertext).not.toContain("xoxe");
    const audit = await tenants.registry.listAudit(operator, { tenantId: workspace.tenantId });
    const rotated = audit.filter((entry) => entry.action === "workspace.credentials.rotate");
    expect(rotated).toHaveLength(1);
    expect(JSON.stringify(rotated)).not.toContain("xoxe");
  });

  it("a change that throws stores nothing and frees the workspace for the next", async () => {
    const workspace = await newWorkspace(opened.instances[0] as Tenants);
    const [tenants] = opened.instances as [Tenants];
    await expect(
      tenants.credentials.change<Creds>(workspace.id, () => Promise.reject(new Error("invalid_refresh_token"))),
    ).rejects.toThrow("invalid_refresh_token");
    const kept = await tenants.credentials.change<Creds>(workspace.id, () => Promise.resolve(undefined));
    expect(kept.botToken).toBe("xoxe.xoxb-old");
  });
});

describe("PostgreSQL: a holder that dies", () => {
  const opened = openInstances(postgres);

  it("a holder whose connection dies lets go of the workspace at once", async () => {
    const workspace = await newWorkspace(opened.instances[0] as Tenants);
    const holder = new pg.Client({ connectionString: opened.location?.databaseUrl });
    await holder.connect();
    holder.on("error", () => {});
    await holder.query("begin");
    await holder.query("select id from workspaces where id = $1 for update", [workspace.id]);
    const [tenants] = opened.instances as [Tenants];
    let waited = false;
    const change = tenants.credentials
      .change<Creds>(workspace.id, async (stored) => ({ ...stored, botToken: "xoxe.xoxb-after" }))
      .finally(() => (waited = true));
    await sleep(300);
    expect(waited).toBe(false);
    const killedAt = Date.now();
    // As kill -9 does: the socket closes without a rollback being sent.
    (holder as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    expect((await change).botToken).toBe("xoxe.xoxb-after");
    console.log(`[PostgreSQL: holder died] the waiter went on ${Date.now() - killedAt} ms later`);
    expect(Date.now() - killedAt).toBeLessThan(2_000);
  });
});

/** Two instances on one database (PGlite: one, which only one process may open), and what their feeds carried. */
function openInstances(backend: Backend) {
  const opened = { instances: [] as Tenants[], published: [] as string[], location: undefined as Location | undefined };
  const { logger } = captureLogger();
  const secretKey = newSecretKey();
  beforeAll(async () => {
    const location = await backend.fresh();
    opened.location = location;
    const open = async () => {
      const feed = new MemoryChangeFeed();
      feed.subscribe((id) => opened.published.push(id));
      const sql = await openDatabase({ ...location, logger });
      return createTenants(sql, { ...location, secretKey, logger, changeFeed: feed, platforms });
    };
    const first = await open();
    opened.instances = backend.concurrentOpens ? [first, await open()] : [first];
  });
  afterAll(async () => {
    for (const tenants of opened.instances) await tenants.close();
    await opened.location?.dispose();
  });
  return opened;
}

async function newWorkspace(tenants: Tenants) {
  const tenant = await tenants.registry.createTenant(operator, { name: "Acme" });
  const credentials: Creds = {
    signingSecret: "a".repeat(32),
    botToken: "xoxe.xoxb-old",
    botRefreshToken: "xoxe-1-old",
  };
  return tenants.registry.createWorkspace(operator, tenant.id, { platform: "slack", name: "w", credentials });
}
