import { readdir, readFile } from "node:fs/promises";
import type { SqlClient } from "./sql-client.ts";

const migrationsDir = new URL("../migrations/", import.meta.url);
const migrationFile = /^(\d+)_[\w-]+\.sql$/;

/** Any fixed 64-bit number will do; this one is ours ("resident" in ASCII, read as an integer). */
const migrationLock = "8243121589464690292";

/**
 * Applies the migrations not yet recorded in schema_migrations, in order, in one transaction, and returns their
 * versions. Instances starting together against one database take turns on an advisory lock held until commit,
 * so each migration runs exactly once.
 */
export async function migrate(sql: SqlClient): Promise<string[]> {
  const files = (await readdir(migrationsDir)).filter((name) => migrationFile.test(name)).sort();
  return sql.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1::bigint)", [migrationLock]);
    await tx.exec(
      "create table if not exists schema_migrations (version text primary key, name text not null, applied_at timestamptz not null default now())",
    );
    const applied = new Set(
      (await tx.query<{ version: string }>("select version from schema_migrations")).map((r) => r.version),
    );
    const pending = files.filter((name) => !applied.has(versionOf(name)));
    for (const name of pending) {
      await tx.exec(await readFile(new URL(name, migrationsDir), "utf8"));
      await tx.query("insert into schema_migrations (version, name) values ($1, $2)", [versionOf(name), name]);
    }
    return pending.map(versionOf);
  });
}

function versionOf(name: string): string {
  return migrationFile.exec(name)?.[1] ?? name;
}
