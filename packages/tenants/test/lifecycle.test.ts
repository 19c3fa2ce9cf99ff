import { readdir } from "node:fs/promises";
import { MemoryChangeFeed } from "@resident/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, openTenants, WrongSecretKeyError } from "../src/index.ts";
import { backends, captureLogger, type Location, newSecretKey, slackCredentials } from "./helpers.ts";

const migrationCount = (await readdir(new URL("../migrations/", import.meta.url))).filter((f) =>
  f.endsWith(".sql"),
).length;

describe.each(backends)("$name: starting up", (backend) => {
  let location: Location;
  const secretKey = newSecretKey();
  const { logger, lines } = captureLogger();
  const open = (key = secretKey) =>
    openTenants({ ...location, secretKey: key, logger, changeFeed: new MemoryChangeFeed() });

  beforeAll(async () => {
    location = await backend.fresh();
  });
  afterAll(() => location.dispose());

  it("applies each migration once and prints one operator token when two instances start together", async () => {
    // Each start also asks twice at once, as racing code paths within one instance could.
    const start = async () => {
      const tenants = await open();
      try {
        return await Promise.all([tenants.tokens.ensureOperatorToken(), tenants.tokens.ensureOperatorToken()]);
      } finally {
        await tenants.close();
      }
    };
    const starts = backend.concurrentOpens ? await Promise.all([start(), start()]) : [await start(), await start()];
    const printed = starts.flat().filter((token) => token !== undefined);
    expect(printed).toHaveLength(1);
    const [token] = printed as [string];
    expect(token).toMatch(/^rsd_[A-Za-z0-9_-]{43}$/);

    const later = await open();
    try {
      expect(await later.tokens.ensureOperatorToken()).toBeUndefined();
      expect(await later.tokens.authenticate(token)).toEqual({ role: "operator" });
      const audit = await later.registry.listAudit({ role: "operator" });
      expect(audit.filter((entry) => entry.action === "operator_token.generate")).toHaveLength(1);
    } finally {
      await later.close();
    }
    expect(lines.filter((line) => line.includes('"msg":"tenant database migrated"'))).toHaveLength(1);
    expect(lines.join("\n")).not.toContain(token);

    const sql = await openDatabase({ ...location, logger });
    const versions = await sql.query<{ version: string }>("select version from schema_migrations");
    await sql.close();
    expect(versions).toHaveLength(migrationCount);
    expect(new Set(versions.map((row) => row.version)).size).toBe(migrationCount);
    // Four opens: PGlite compiles its WASM each time, which took 33 s once on a loaded 2-core machine.
  }, 120_000);

  it("refuses a different SECRET_KEY with a named error, and opens again with the right one", async () => {
    const credentials = slackCredentials();
    const first = await open();
    const tenant = await first.registry.createTenant({ role: "operator" }, { name: "Acme" });
    const workspace = await first.registry.createWorkspace({ role: "operator" }, tenant.id, {
      platform: "slack",
      name: "acme",
      credentials,
    });
    await first.close();

    const wrongKey = newSecretKey();
    const refused = open(wrongKey);
    await expect(refused).rejects.toBeInstanceOf(WrongSecretKeyError);
    await expect(refused).rejects.toThrow(/SECRET_KEY/);
    await expect(refused).rejects.not.toThrow(wrongKey);

    const reopened = await open();
    expect((await reopened.directory.workspace(workspace.id))?.credentials).toEqual(credentials);
    await reopened.close();
  });
});
