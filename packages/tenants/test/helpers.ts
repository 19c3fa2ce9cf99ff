import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@resident/core";
import { MemoryChangeFeed } from "@resident/store";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { createTenants, openDatabase, type SqlClient, type Tenants, type TenantsOptions } from "../src/index.ts";

const postgresUrl = "postgres://postgres@127.0.0.1:5432/test";

/** Where one test database lives: what openTenants needs to reach it, and how to throw it away. */
export interface Location {
  databaseUrl?: string;
  dataDir: string;
  dispose(): Promise<void>;
}

export interface Backend {
  name: string;
  /** Several instances can open the database at the same moment (PostgreSQL), or only one at a time (PGlite). */
  concurrentOpens: boolean;
  fresh(): Promise<Location>;
}

const tempDir = () => mkdtemp(join(tmpdir(), "resident-tenants-"));

const pglite: Backend = {
  name: "PGlite",
  concurrentOpens: false,
  async fresh() {
    const dataDir = await tempDir();
    return { dataDir, dispose: () => rm(dataDir, { recursive: true, force: true }) };
  },
};

/** A schema of its own per location, so concurrent test runs on the shared server never meet. */
const postgres: Backend = {
  name: "PostgreSQL",
  concurrentOpens: true,
  async fresh() {
    const schema = `tenants_test_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const dataDir = await tempDir();
    return {
      databaseUrl: `${postgresUrl}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
      dataDir,
      async dispose() {
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`drop schema ${schema} cascade`);
        await client.end();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  },
};

export const backends = [pglite, postgres];

/** A 32-byte key, as an operator would set SECRET_KEY. */
/** The platforms these tests open the tenants for. */
export const platforms = ["slack", "teams", "chatwork"];

export const newSecretKey = () => randomBytes(32).toString("base64");

/** A secret value that can be searched for in whatever the package wrote. */
export const secretValue = (label: string) => `${label}-${randomBytes(12).toString("hex")}`;

/** A logger that keeps every line it is given, serialized as pino would. */
export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (obj: object, msg?: string) => {
    lines.push(JSON.stringify({ level, ...obj, msg }));
  };
  return { logger: { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") }, lines };
}

export function slackCredentials() {
  return { signingSecret: secretValue("signing"), botToken: `xoxb-${secretValue("bot")}` };
}

/** What a suite on its own fresh database holds: filled before its first test, closed after its last. */
export interface TenantsSuite {
  sql: SqlClient;
  tenants: Tenants;
  location: Location;
  readonly secretKey: string;
  readonly changeFeed: MemoryChangeFeed;
  readonly logger: Logger;
  /** Every workspace id the change feed carried. */
  seen: string[];
  lines: string[];
}

/**
 * Opens the tenants on a fresh database of `backend` for the calling suite (a beforeAll there, so the suite's own
 * beforeAlls after this call see them open), and disposes of it after.
 */
export function tenantsPerSuite(
  backend: Backend,
  options: Pick<TenantsOptions, "defaultFailModes"> = {},
): TenantsSuite {
  const { logger, lines } = captureLogger();
  const changeFeed = new MemoryChangeFeed();
  const suite = { seen: [] as string[], lines, logger, changeFeed, secretKey: newSecretKey() } as TenantsSuite;
  changeFeed.subscribe((id) => suite.seen.push(id));
  beforeAll(async () => {
    suite.location = await backend.fresh();
    suite.sql = await openDatabase({ ...suite.location, logger });
    suite.tenants = await createTenants(suite.sql, {
      ...suite.location,
      ...options,
      secretKey: suite.secretKey,
      logger,
      changeFeed,
      platforms,
    });
  });
  afterAll(async () => {
    await suite.tenants?.close();
    await suite.location?.dispose();
  });
  return suite;
}
