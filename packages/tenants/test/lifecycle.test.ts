import { scryptSync } from "node:crypto";
import { readdir } from "node:fs/promises";
import { MemoryChangeFeed } from "@resident/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CredentialCipher, openDatabase, openTenants, type Tenants, WrongSecretKeyError } from "../src/index.ts";
import { backends, captureLogger, type Location, newSecretKey, platforms, slackCredentials } from "./helpers.ts";

const migrationCount = (await readdir(new URL("../migrations/", import.meta.url))).filter((f) =>
  f.endsWith(".sql"),
).length;

/** Stores a Slack workspace through `tenants`, then closes them: what a later start must still open. */
async function storeWorkspace(tenants: Tenants) {
  const credentials = slackCredentials();
  const tenant = await tenants.registry.createTenant({ role: "operator" }, { name: "Acme" });
  const workspace = await tenants.registry.createWorkspace({ role: "operator" }, tenant.id, {
    platform: "slack",
    name: "acme",
    credentials,
  });
  await tenants.close();
  return { credentials, workspace };
}

describe.each(backends)("$name: starting up", (backend) => {
  let location: Location;
  const secretKey = newSecretKey();
  const { logger, lines } = captureLogger();
  const open = (key = secretKey) =>
    openTenants({ ...location, secretKey: key, logger, changeFeed: new MemoryChangeFeed(), platforms });

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
    const { credentials, workspace } = await storeWorkspace(await open());

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

describe.each(backends)("$name: a passphrase SECRET_KEY", (backend) => {
  const passphrase = "a passphrase shared by every instance";
  const { logger } = captureLogger();
  const open = (location: Location) =>
    openTenants({ ...location, secretKey: passphrase, logger, changeFeed: new MemoryChangeFeed(), platforms });
  const storedSalt = async (location: Location) => {
    const sql = await openDatabase({ ...location, logger });
    const [row] = await sql.query<{ salt: string }>("select salt from secret_key_salt");
    await sql.close();
    return row?.salt;
  };

  it("is derived with a random salt stored beside the data, which every later start uses", async () => {
    const location = await backend.fresh();
    try {
      const { credentials, workspace } = await storeWorkspace(await open(location));
      const salt = await storedSalt(location);
      expect(salt).toMatch(/^[A-Za-z0-9_-]{22}$/);

      const second = await open(location);
      expect((await second.directory.workspace(workspace.id))?.credentials).toEqual(credentials);
      await second.close();
      expect(await storedSalt(location)).toBe(salt);
    } finally {
      await location.dispose();
    }
  });

  it("keeps opening a database sealed before salts were stored, with the fixed salt it was sealed with", async () => {
    const location = await backend.fresh();
    try {
      // A database as the previous version left it: migrated, its check value sealed with the fixed-salt key.
      const legacySalt = "resident/credentials/v1";
      const legacyKey = scryptSync(passphrase, legacySalt, 32);
      const first = await open(location);
      await first.close();
      const sql = await openDatabase({ ...location, logger });
      await sql.query("delete from secret_key_salt");
      await sql.query("update secret_key_check set ciphertext = $1", [
        new CredentialCipher(legacyKey).seal("resident", "secret-key-check"),
      ]);
      await sql.close();

      const upgraded = await open(location);
      await upgraded.close();
      expect(await storedSalt(location)).toBe(legacySalt);
    } finally {
      await location.dispose();
    }
  });
});
