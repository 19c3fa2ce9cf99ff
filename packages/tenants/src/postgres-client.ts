import type { Logger } from "@resident/core";
import pg from "pg";
import { databaseCall } from "./database-errors.ts";
import type { SqlClient, SqlExecutor } from "./sql-client.ts";

function executor(target: pg.Pool | pg.PoolClient): SqlExecutor {
  return {
    async query<Row>(text: string, params: readonly unknown[] = []) {
      const result = await databaseCall(() => target.query(text, [...params]));
      return result.rows as Row[];
    },
    async exec(script: string) {
      // Without parameters node-postgres uses the simple protocol, which runs several statements at once.
      await databaseCall(() => target.query(script));
    },
  };
}

/** PostgreSQL through a node-postgres pool. Every call rejects with DatabaseUnavailableError while it is away. */
export class PostgresClient implements SqlClient {
  private readonly pool: pg.Pool;
  private readonly direct: SqlExecutor;

  constructor(connectionString: string, logger: Logger) {
    // Room for the ack path's fallback lane and the workers' reply ledger, which both run here while Redis is away.
    this.pool = new pg.Pool({ connectionString, connectionTimeoutMillis: 5_000, max: 16 });
    // An idle connection that breaks would otherwise crash the process; the pool replaces it.
    this.pool.on("error", (error) => logger.warn({ err: error.message }, "idle PostgreSQL connection failed"));
    this.direct = executor(this.pool);
  }

  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]> {
    return this.direct.query<Row>(text, params);
  }

  exec(script: string): Promise<void> {
    return this.direct.exec(script);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await databaseCall(() => this.pool.connect());
    let broken: Error | undefined;
    // A connection lost while checked out (the server ended the session) emits 'error', which with no listener
    // would end the process; the transaction's next query rejects instead, and the connection is not reused.
    const lost = (error: Error) => {
      broken = error;
    };
    client.on("error", lost);
    try {
      await databaseCall(() => client.query("begin"));
      const result = await work(executor(client));
      await databaseCall(() => client.query("commit"));
      return result;
    } catch (error) {
      await client.query("rollback").catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      client.off("error", lost);
      // A connection that broke or could not roll back is destroyed rather than handed to the next caller.
      client.release(broken);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
