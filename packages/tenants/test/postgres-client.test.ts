import { setTimeout as sleep } from "node:timers/promises";
import { DatabaseUnavailableError } from "@resident/core";
import { createDatabase, TcpLink, type TestDatabase } from "@resident/testkit/processes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresClient } from "../src/postgres-client.ts";
import { captureLogger } from "./helpers.ts";

describe("PostgresClient on a connection the network has cut", () => {
  let database: TestDatabase;
  let link: TcpLink;
  let client: PostgresClient;
  beforeAll(async () => {
    database = await createDatabase();
    link = await TcpLink.start(Number(new URL(database.url).port || 5432));
    const { logger } = captureLogger();
    client = new PostgresClient(link.through(database.url), logger, { statementMs: 300, transactionStatementMs: 500 });
  });
  afterAll(async () => {
    await client?.close().catch(() => {});
    await link?.close();
    await database?.drop();
  });

  it("fails a statement that goes unanswered as the database being away, and reconnects once the link heals", async () => {
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
    await sleep(100);
    expect(await client.query("select 5 as five")).toEqual([{ five: 5 }]);
    expect(await client.transaction((tx) => tx.query("select 6 as six"))).toEqual([{ six: 6 }]);
  });
});
