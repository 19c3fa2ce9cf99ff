import { DatabaseUnavailableError, StoreUnavailableError } from "@resident/core";

/**
 * The one thing the PostgreSQL lane needs of a database client: `$n` parameters, rows back. @resident/tenants'
 * SqlClient (node-postgres or PGlite) is one; it rejects with DatabaseUnavailableError while the server is away.
 */
export interface LaneSql {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

/** Runs one lane operation; the database being away becomes StoreUnavailableError, as for the Redis lane. */
export async function laneCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof DatabaseUnavailableError)) throw error;
    throw new StoreUnavailableError(`postgres ${operation} failed: ${error.message}`, { cause: error });
  }
}

/** `$n` milliseconds from the statement's start, as SQL. */
export const msFromNow = (param: number) => `now() + $${param}::double precision * interval '1 millisecond'`;
