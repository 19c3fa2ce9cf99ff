import { DatabaseUnavailableError } from "@resident/core";

/*
 * What counts as "the database is away": anything node-postgres raises that is not the server's answer to a
 * statement (refused or reset connections, timeouts, a connection terminated mid-query), and the server's own
 * answers that mean it cannot serve right now — SQLSTATE class 08 (connection exception), 57P (shut down or
 * starting), 53 (out of connections or memory). Every other SQLSTATE is an answer about the statement or its data.
 */
const sqlState = /^[0-9A-Z]{5}$/;
const unavailableStates = /^(08|57P|53)/;

function isDatabaseDown(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && sqlState.test(code)) return unavailableStates.test(code);
  return true;
}

/** Runs one database call; an outage becomes core's DatabaseUnavailableError, anything else passes unchanged. */
export async function databaseCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof DatabaseUnavailableError || !isDatabaseDown(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new DatabaseUnavailableError(`PostgreSQL is unreachable: ${reason}`, { cause: error });
  }
}
