import pg from "pg";
import type { TimedQuery } from "./postgres-client.ts";

/**
 * The database breaker's probe: `select 1` on a connection of its own, so that a pool busy with real statements
 * never fails a probe, and a probe never waits behind them. A connection whose probe failed is dropped (on a cut
 * network it would hold the next probe too); the next probe opens another.
 */
export class PostgresProber {
  private client: pg.Client | undefined;
  private connecting: Promise<unknown> | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly timeoutMs: number,
  ) {}

  async probe(): Promise<void> {
    if (!this.client) this.open();
    const client = this.client as pg.Client;
    try {
      await this.connecting;
      const config: TimedQuery = { text: "select 1", query_timeout: this.timeoutMs };
      await client.query(config);
    } catch (error) {
      this.drop(client);
      throw error;
    }
  }

  close(): void {
    if (this.client) this.drop(this.client);
  }

  private open(): void {
    const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: this.timeoutMs });
    // Unheard, a connection's error would end the process.
    client.on("error", () => this.drop(client));
    this.client = client;
    this.connecting = client.connect();
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.connecting = undefined;
    // Not awaited: on a cut network the goodbye is never answered.
    client.end().catch(() => {});
  }
}
