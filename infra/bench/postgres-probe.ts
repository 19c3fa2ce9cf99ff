// pg comes with @resident/testkit (its test databases); the bench uses it only to read the server's counters.
import pg from "pg";

/**
 * The deployment's database as PostgreSQL counts it: transactions committed and rolled back in it. The service runs
 * every lane and ledger statement outside an explicit transaction, so each is one transaction: the delta around a
 * window is the statements the instances sent (plus the few of their pollers and sweepers, measured idle apart).
 */
export const countsSettleMs = 11_000;

export class PostgresProbe {
  private readonly client: pg.Client;

  private constructor(url: string) {
    this.client = new pg.Client({ connectionString: url, application_name: "bench-probe" });
  }

  static async connect(url: string): Promise<PostgresProbe> {
    const probe = new PostgresProbe(url);
    await probe.client.connect();
    return probe;
  }

  /**
   * Transactions so far and when (the probe's own two a reading are in the count: negligible against thousands).
   * A busy backend reports its counts at most once a second, and one that then goes idle holds the rest for up to
   * 10 s (PostgreSQL's PGSTAT_IDLE_INTERVAL): read `countsSettleMs` after the traffic, or its last second falls into
   * the next window.
   */
  async snapshot(): Promise<{ transactions: number; at: number }> {
    // Without this, a transaction reads the statistics snapshot it took first: every read would say the same.
    await this.client.query("select pg_stat_clear_snapshot()");
    const { rows } = await this.client.query<{ n: string }>(
      "select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()",
    );
    return { transactions: Number(rows[0]?.n ?? 0), at: performance.now() };
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
