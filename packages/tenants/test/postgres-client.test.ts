import { DatabaseUnavailableError } from "@resident/core";
import { createDatabase, TcpLink, type TestDatabase } from "@resident/testkit/processes";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PostgresClient } from "../src/postgres-client.ts";
import { captureLogger } from "./helpers.ts";

describe("PostgresClient on a connection the network has cut", () => {
  let database: TestDatabase;
  let link: TcpLink;
  const clients: PostgresClient[] = [];
  beforeAll(async () => {
    database = await createDatabase();
    link = await TcpLink.start(Number(new URL(database.url).port || 5432));
  });
  afterAll(async () => {
    link?.heal();
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await link?.close();
    await database?.drop();
  });
  const through = (options: ConstructorParameters<typeof PostgresClient>[2]) => {
    const client = new PostgresClient(link.through(database.url), captureLogger().logger, options);
    clients.push(client);
    return client;
  };

  it("fails a statement that goes unanswered as the database being away, and reconnects once the link heals", async () => {
    // A breaker too slow to trip here: the statements' own bounds answer.
    const client = through({ statementMs: 300, transactionStatementMs: 500, probeTimeoutMs: 60_000 });
    expect(await client.query("select 1 as one")).toEqual([{ one: 1 }]);
    try {
      // The connections are open and silent: without a bound these statements would wait for TCP to give up.
      link.partition();
      await expect(client.query("select 2 as two")).rejects.toBeInstanceOf(DatabaseUnavailableError);
      link.heal();
      const cutMidTransaction = client.transaction(async (tx) => {
        await tx.query("select 3");
        link.partition();
        return tx.query("select 4");
      });
      await expect(cutMidTransaction).rejects.toBeInstanceOf(DatabaseUnavailableError);
    } finally {
      link.heal();
    }
    // The silent connections were dropped, not handed back: the next statements are answered.
    expect(await client.query("select 5 as five")).toEqual([{ five: 5 }]);
    expect(await client.transaction((tx) => tx.query("select 6 as six"))).toEqual([{ six: 6 }]);
  });

  it("fails every call at once while its probes go unanswered, and lets them through once they are answered", async () => {
    const client = through({ statementMs: 30_000, probeIntervalMs: 50, probeTimeoutMs: 200 });
    expect(await client.query("select 1 as one")).toEqual([{ one: 1 }]);
    try {
      link.partition();
      await vi.waitFor(() => expect(client.reachable).toBe(false), { timeout: 5_000, interval: 20 });
      // Not the statement's 30 s bound: the breaker answers without a round trip.
      await expect(client.query("select 2")).rejects.toThrow(/probes go unanswered/);
      await expect(client.transaction((tx) => tx.query("select 3"))).rejects.toThrow(/probes go unanswered/);
    } finally {
      link.heal();
    }
    await vi.waitFor(() => expect(client.reachable).toBe(true), { timeout: 5_000, interval: 20 });
    expect(await client.query("select 4 as four")).toEqual([{ four: 4 }]);
  });
});
