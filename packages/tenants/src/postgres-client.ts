import { DatabaseUnavailableError, type Logger, StoreHealth, type StoreHealthOptions } from "@resident/core";
import pg from "pg";
import { databaseCall } from "./database-errors.ts";
import { PostgresProber } from "./postgres-prober.ts";
import type { SqlClient, SqlExecutor } from "./sql-client.ts";

/*
 * How long a statement may go unanswered. A connection the network has cut (a partition, a host gone without a
 * reset) neither answers nor fails: its statement would hang until TCP gives up, a quarter of an hour later, and an
 * answer in hand with it. Past the bound the statement fails as the database being away, and node-postgres's pool
 * drops the connection. The hot statements (the reply ledger, the directory, the PostgreSQL lane) take milliseconds;
 * a transaction may wait on a row or advisory lock for longer (a token refresh's lock_timeout is 35 s, instances
 * starting together take turns to migrate), so it has a bound of its own.
 */
export interface StatementTimeouts {
  /** Default 10 s. */
  statementMs?: number;
  /** A statement inside a transaction. Default 60 s. */
  transactionStatementMs?: number;
}

/** node-postgres reads `query_timeout` from a query's config as from the client's; its types know the latter only. */
export type TimedQuery = pg.QueryConfig & { query_timeout: number };

const unreachable = () => new DatabaseUnavailableError("PostgreSQL is unreachable: its probes go unanswered");

/** One call to the database through the breaker: rejected at once while it is open, its outcome told to it. */
function guarded<T>(health: StoreHealth, call: () => Promise<T>): Promise<T> {
  return health.call(() => databaseCall(call), unreachable);
}

function executor(target: pg.Pool | pg.PoolClient, timeoutMs: number, health: StoreHealth): SqlExecutor {
  return {
    async query<Row>(text: string, params: readonly unknown[] = []) {
      const config: TimedQuery = { text, values: [...params], query_timeout: timeoutMs };
      const result = await guarded(health, () => target.query(config));
      return result.rows as Row[];
    },
    async exec(script: string) {
      // Without parameters node-postgres uses the simple protocol, which runs several statements at once.
      const config: TimedQuery = { text: script, query_timeout: timeoutMs };
      await guarded(health, () => target.query(config));
    },
  };
}

/**
 * PostgreSQL through a node-postgres pool. Every call rejects with DatabaseUnavailableError while it is away — at
 * once while a breaker (core's StoreHealth, probing with `select 1` on a connection of its own) says so, as Redis'
 * does: an instance cut off from its database stops waiting a statement's bound on every job it takes, and its
 * jobs go back to the queue for the instances that can reach it.
 */
export class PostgresClient implements SqlClient {
  private readonly pool: pg.Pool;
  private readonly direct: SqlExecutor;
  private readonly transactionStatementMs: number;
  private readonly prober: PostgresProber;
  private readonly health: StoreHealth;

  constructor(connectionString: string, logger: Logger, options: StatementTimeouts & StoreHealthOptions = {}) {
    // Room for the ack path's fallback lane and the workers' reply ledger, which both run here while Redis is away.
    this.pool = new pg.Pool({ connectionString, connectionTimeoutMillis: 5_000, max: 16 });
    // An idle connection that breaks would otherwise crash the process; the pool replaces it.
    this.pool.on("error", (error) => logger.warn({ err: error.message }, "idle PostgreSQL connection failed"));
    this.prober = new PostgresProber(connectionString, options.probeTimeoutMs ?? 1000);
    this.health = new StoreHealth(() => this.prober.probe(), {
      onChange: (up, reason) =>
        up
          ? logger.warn({ reason }, "PostgreSQL answers again")
          : logger.warn({ reason }, "PostgreSQL is unreachable: its calls fail at once until it answers again"),
      ...options,
    });
    this.direct = executor(this.pool, options.statementMs ?? 10_000, this.health);
    this.transactionStatementMs = options.transactionStatementMs ?? 60_000;
  }

  get reachable(): boolean {
    return this.health.up;
  }

  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]> {
    return this.direct.query<Row>(text, params);
  }

  exec(script: string): Promise<void> {
    return this.direct.exec(script);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await guarded(this.health, () => this.pool.connect());
    let broken: Error | undefined;
    // A connection lost while checked out (the server ended the session) emits 'error', which with no listener
    // would end the process; the transaction's next query rejects instead, and the connection is not reused.
    const lost = (error: Error) => {
      broken = error;
    };
    client.on("error", lost);
    const tx = executor(client, this.transactionStatementMs, this.health);
    try {
      await tx.query("begin");
      const result = await work(tx);
      await tx.query("commit");
      return result;
    } catch (error) {
      // A connection that went unanswered would hold a rollback as long again: it is dropped instead, and PostgreSQL
      // rolls back the transaction of a session that ends.
      if (error instanceof DatabaseUnavailableError) broken = error;
      else
        await tx.query("rollback").catch((rollbackError: Error) => {
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
    this.health.close();
    this.prober.close();
    return this.pool.end();
  }
}
