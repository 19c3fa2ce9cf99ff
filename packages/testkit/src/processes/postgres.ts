import { randomBytes } from "node:crypto";
import pg from "pg";

/** The PostgreSQL the machine runs (127.0.0.1:5432, trust auth); POSTGRES_ADMIN_URL overrides it. */
const adminUrl = process.env.POSTGRES_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test file, dropped (connections and all) afterwards. */
export async function createDatabase(): Promise<TestDatabase> {
  const name = `resident_${randomBytes(6).toString("hex")}`;
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
