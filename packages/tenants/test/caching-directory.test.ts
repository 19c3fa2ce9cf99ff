import { setTimeout as sleep } from "node:timers/promises";
import { DatabaseUnavailableError } from "@resident/core";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  CachingDirectory,
  type CachingDirectoryOptions,
  CredentialCipher,
  loadSecretKey,
  type Principal,
} from "../src/index.ts";
import { backends, slackCredentials, tenantsPerSuite } from "./helpers.ts";

const operator: Principal = { role: "operator" };

describe.each(backends)("$name: the caching directory", (backend) => {
  const suite = tenantsPerSuite(backend, { defaultFailModes: { slack: "open" } });
  const { changeFeed, logger } = suite;
  let cipher: CredentialCipher;
  let tenantId: string;

  /** Another instance's directory: same database and feed, a cache of its own. */
  const anotherDirectory = (options: Partial<CachingDirectoryOptions> = {}) =>
    new CachingDirectory({ sql: suite.sql, cipher, changeFeed, ...options });
  const newWorkspace = (settings = {}) =>
    suite.tenants.registry.createWorkspace(operator, tenantId, {
      platform: "slack",
      name: "support",
      credentials: slackCredentials(),
      settings,
    });
  /** Takes the row away behind the registry's back: no change notice goes out. */
  const removeRow = async (id: string) => {
    const [row] = await suite.sql.query<Record<string, unknown>>("delete from workspaces where id = $1 returning *", [
      id,
    ]);
    return row as Record<string, unknown>;
  };
  const restoreRow = (row: Record<string, unknown>) => {
    const columns = Object.keys(row);
    return suite.sql.query(
      `insert into workspaces (${columns.join(", ")}) values (${columns.map((_, i) => `$${i + 1}`).join(", ")})`,
      columns.map((column) => {
        const value = row[column];
        return value !== null && typeof value === "object" && !(value instanceof Date) ? JSON.stringify(value) : value;
      }),
    );
  };

  const unused = () => Promise.reject(new Error("a raw key needs no salt"));
  beforeAll(async () => {
    cipher = new CredentialCipher(
      await loadSecretKey({
        secretKey: suite.secretKey,
        dataDir: suite.location.dataDir,
        logger,
        passphraseSalt: unused,
      }),
    );
    tenantId = (await suite.tenants.registry.createTenant(operator, { name: "Acme" })).id;
  });

  it("gives the pipeline the workspace with its credentials and resolved settings", async () => {
    const credentials = slackCredentials();
    const record = await suite.tenants.registry.createWorkspace(operator, tenantId, {
      platform: "slack",
      name: "support",
      credentials,
      settings: { model: "claude-haiku-4-5" },
      identity: { botUserId: "U0BOT" },
    });
    expect(await suite.tenants.directory.workspace(record.id)).toEqual({
      id: record.id,
      tenantId,
      platform: "slack",
      name: "support",
      credentials,
      settings: {
        systemPrompt: expect.any(String),
        model: "claude-haiku-4-5",
        failMode: "open",
        eventTtlSeconds: 86_400,
        replyTtlSeconds: 86_400,
        streaming: true,
        suggestedPrompts: [],
      },
      identity: { botUserId: "U0BOT" },
      toolServers: [],
      budgets: { tenant: {}, workspace: {} },
    });
    const closed = await newWorkspace({ failMode: "closed" });
    expect((await suite.tenants.directory.workspace(closed.id))?.settings.failMode).toBe("closed");
  });

  it("gives each workspace its tenant's budget and its own, and a budget change reaches it at once", async () => {
    const { id } = await newWorkspace();
    expect((await suite.tenants.directory.workspace(id))?.budgets).toEqual({ tenant: {}, workspace: {} });
    await suite.tenants.budgets.setTenantBudget(operator, tenantId, { tokensPerDay: 1_000, answersPerMinute: null });
    await suite.tenants.budgets.setWorkspaceBudget(operator, tenantId, id, { answersPerMinute: 5 });
    expect((await suite.tenants.directory.workspace(id))?.budgets).toEqual({
      tenant: { tokensPerDay: 1_000 },
      workspace: { answersPerMinute: 5 },
    });
  });

  it("answers a cache hit without the database, until a change notice arrives", async () => {
    const { id } = await newWorkspace();
    const found = await suite.tenants.directory.workspace(id);
    await removeRow(id);
    expect(await suite.tenants.directory.workspace(id)).toEqual(found);
    await changeFeed.publish(id);
    expect(await suite.tenants.directory.workspace(id)).toBeUndefined();
  });

  it("answers a cache hit without setting a timer: it is asked on every webhook", async () => {
    const { id } = await newWorkspace();
    await suite.tenants.directory.workspace(id);
    await sleep(5);
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    try {
      expect((await suite.tenants.directory.workspace(id))?.id).toBe(id);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("never caches an unknown workspace", async () => {
    const { id } = await newWorkspace();
    const row = await removeRow(id);
    expect(await suite.tenants.directory.workspace(id)).toBeUndefined();
    await restoreRow(row);
    expect((await suite.tenants.directory.workspace(id))?.id).toBe(id);
  });

  it("makes every instance forget a workspace the registry changes", async () => {
    const { id } = await newWorkspace();
    const other = anotherDirectory();
    expect((await other.workspace(id))?.name).toBe("support");
    await suite.tenants.registry.updateWorkspace(operator, tenantId, id, { name: "helpdesk" });
    expect((await other.workspace(id))?.name).toBe("helpdesk");
    await suite.tenants.registry.deleteWorkspace(operator, tenantId, id);
    expect(await other.workspace(id)).toBeUndefined();
    other.close();
  });

  it("does not cache a read that a change notice overtook", async () => {
    const { id } = await newWorkspace();
    const other = anotherDirectory();
    const reading = other.workspace(id);
    other.forget(id);
    expect((await reading)?.id).toBe(id);
    await removeRow(id);
    expect(await other.workspace(id)).toBeUndefined();
    other.close();
  });

  it("keeps entries only briefly and only so many", async () => {
    const [first, second] = [await newWorkspace(), await newWorkspace()];
    const brief = anotherDirectory({ ttlMs: 20 });
    const small = anotherDirectory({ maxEntries: 1 });
    await brief.workspace(first.id);
    await small.workspace(first.id);
    await small.workspace(second.id);
    await removeRow(first.id);
    await sleep(40);
    expect(await brief.workspace(first.id)).toBeUndefined();
    expect(await small.workspace(first.id)).toBeUndefined();
    brief.close();
    small.close();
  });

  it("answers a workspace it has read before from that reading, however old, while the database is away", async () => {
    const [seen, unseen] = [await newWorkspace(), await newWorkspace()];
    let down = false;
    const away = <T>(call: () => Promise<T>) => (down ? Promise.reject(new DatabaseUnavailableError("away")) : call());
    const flaky = new CachingDirectory({
      sql: {
        query: (text, params) => away(() => suite.sql.query(text, params)),
        exec: (script) => away(() => suite.sql.exec(script)),
      },
      cipher,
      changeFeed,
      ttlMs: 20,
    });
    await flaky.workspace(seen.id);
    await sleep(40);
    down = true;
    expect((await flaky.workspace(seen.id))?.id).toBe(seen.id);
    await expect(flaky.workspace(unseen.id)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    down = false;
    await removeRow(seen.id);
    // Back: the stale reading is not served any more; the database says it is gone.
    expect(await flaky.workspace(seen.id)).toBeUndefined();
    flaky.close();
  });

  it("turns away malformed ids", async () => {
    for (const id of ["", "ws_short", "tn_AAAAAAAAAAAAAAAAAAAAAA", "ws_AAAAAAAAAAAAAAAAAAAA:A", "ws_a/../b"]) {
      expect(await suite.tenants.directory.workspace(id)).toBeUndefined();
    }
  });
});
