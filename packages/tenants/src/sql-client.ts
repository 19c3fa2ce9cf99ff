/** The little SQL the package needs, over node-postgres and PGlite alike: one dialect, `$n` parameters. */
export interface SqlExecutor {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (a migration file). */
  exec(script: string): Promise<void>;
}

export interface SqlClient extends SqlExecutor {
  /** Whether calls go through now: false while PostgreSQL's breaker says it is away; PGlite, in-process, always. */
  readonly reachable: boolean;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
