import { mkdir } from "node:fs/promises";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { SqlClient, SqlExecutor } from "./sql-client.ts";

function executor(target: PGlite | Transaction): SqlExecutor {
  return {
    async query<Row>(text: string, params: readonly unknown[] = []) {
      const result = await target.query<Row>(text, [...params]);
      return result.rows;
    },
    async exec(script: string) {
      await target.exec(script);
    },
  };
}

/** Embedded PostgreSQL (PGlite, WASM) in a directory: one process only. */
export class PgliteClient implements SqlClient {
  readonly reachable = true;
  private readonly direct: SqlExecutor;

  private constructor(private readonly db: PGlite) {
    this.direct = executor(db);
  }

  static async open(dataDir: string): Promise<PgliteClient> {
    // PGlite creates only the last directory of the path; DATA_DIR itself may not exist on a first start.
    await mkdir(dataDir, { recursive: true });
    return new PgliteClient(await PGlite.create(dataDir));
  }

  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]> {
    return this.direct.query<Row>(text, params);
  }

  exec(script: string): Promise<void> {
    return this.direct.exec(script);
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => work(executor(tx)));
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
