import { readFile } from "node:fs/promises";
import {
  type ReceiverConnection,
  type ReceiverDescriptor,
  ReceiverPool,
  type ReceiverSlots,
  resolveSettings,
  StoreUnavailableError,
  type Workspace,
} from "@resident/core";
import { createDatabase, type TestDatabase } from "@resident/testkit/processes";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type LaneSql, PgReceiverSlots } from "../src/index.ts";

/*
 * Receiver slots on the machine's PostgreSQL, and receiver pools of three "instances" sharing them: the leases, the
 * spread (one connection per instance), a graceful leave, and a store that stops answering. The receiver is a
 * recording stand-in for the platform's connections (the outside edge); the pools and the slots are the real ones.
 */

let database: TestDatabase;
let pool: pg.Pool;
let sql: LaneSql;
let slots: PgReceiverSlots;

beforeAll(async () => {
  database = await createDatabase();
  pool = new pg.Pool({ connectionString: database.url });
  pool.on("error", () => {});
  sql = { query: async (text, params = []) => (await pool.query(text, [...params])).rows };
  // The tables are @resident/tenants' migration 007.
  await sql.query(await readFile(new URL("../../tenants/migrations/007_receiver_slots.sql", import.meta.url), "utf8"));
  slots = new PgReceiverSlots(sql);
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe("PgReceiverSlots", () => {
  it("gives a slot to one instance at a time, until its lease lapses or it is released", async () => {
    const a = await slots.take("ws_1", 0, "a", 300);
    expect(a).toBeDefined();
    expect(await slots.take("ws_1", 0, "b", 300)).toBeUndefined();
    expect(await slots.renew("ws_1", 0, "not-the-token", "open", 300)).toBe(false);
    expect(await slots.renew("ws_1", 0, a as string, "open", 300)).toBe(true);
    expect(await slots.held("ws_1")).toMatchObject([{ slot: 0, instanceId: "a", state: "open" }]);
    await vi.waitFor(async () => expect(await slots.take("ws_1", 0, "b", 300)).toBeDefined(), { timeout: 5_000 });
    expect(await slots.renew("ws_1", 0, a as string, "open", 300)).toBe(false);
    const c = await slots.take("ws_1", 1, "c", 10_000);
    await slots.release("ws_1", 1, c as string);
    expect((await slots.held("ws_1")).map((s) => s.slot)).toEqual([0]);
  });

  it("counts the live instances, and one that leaves is counted out at once", async () => {
    expect(await slots.heartbeat("i1", 10_000)).toBe(1);
    expect(await slots.heartbeat("i2", 10_000)).toBe(2);
    await slots.leave("i1");
    expect(await slots.heartbeat("i2", 10_000)).toBe(1);
    await slots.leave("i2");
  });
});

/** Records which instance holds which workspace's connections open. */
class RecordingReceiver implements ReceiverDescriptor {
  readonly credentialField = "appToken";
  readonly maxConnections = 10;
  readonly open_ = new Map<string, { instance: string; workspaceId: string }>();
  lastClosedAt = 0;
  private serial = 0;

  constructor(private readonly instance: string) {}

  open(workspace: Workspace, hooks: Parameters<ReceiverDescriptor["open"]>[1]): ReceiverConnection {
    const id = `${this.instance}:${++this.serial}`;
    this.open_.set(id, { instance: this.instance, workspaceId: workspace.id });
    hooks.onState("open");
    return {
      close: async () => {
        this.open_.delete(id);
        this.lastClosedAt = Date.now();
      },
    };
  }
}

const workspace = (id: string): Workspace => ({
  id,
  tenantId: "tn_1",
  platform: "testchat",
  name: id,
  credentials: { appToken: "t" },
  settings: resolveSettings({}, "closed"),
  identity: {},
});

function instance(name: string, store: ReceiverSlots, workspaces: Workspace[], leaseMs = 600) {
  const receiver = new RecordingReceiver(name);
  const pool = new ReceiverPool({
    instanceId: name,
    slots: store,
    catalog: { withCredential: async () => workspaces },
    receivers: new Map([["testchat", receiver]]),
    deliver: async () => ({ status: 200, body: {} }),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    leaseMs,
  });
  return { name, receiver, pool };
}

describe("ReceiverPool on PgReceiverSlots", () => {
  it("spreads one connection per instance, and takes a leaving instance's share over", async () => {
    const ws = [workspace("ws_spread")];
    const instances = ["p1", "p2", "p3"].map((name) => instance(name, slots, ws));
    const open = () => instances.flatMap((i) => [...i.receiver.open_.values()]);
    try {
      for (const i of instances) i.pool.start();
      await vi.waitFor(
        () => {
          expect(open()).toHaveLength(3);
          expect(new Set(open().map((c) => c.instance)).size).toBe(3);
        },
        { timeout: 10_000 },
      );
      // The state is told to the store by a renewal of its own, a statement behind the connection's opening.
      await vi.waitFor(
        async () => expect((await slots.held("ws_spread")).map((s) => s.state)).toEqual(["open", "open", "open"]),
        { timeout: 10_000 },
      );
      // A graceful stop gives its slot back: two instances left, one connection on each (at least two in all).
      await instances[0]?.pool.close();
      await vi.waitFor(
        () => {
          expect(open()).toHaveLength(2);
          expect(new Set(open().map((c) => c.instance))).toEqual(new Set(["p2", "p3"]));
        },
        { timeout: 10_000 },
      );
      // One instance alone holds both.
      await instances[1]?.pool.close();
      await vi.waitFor(() => expect(open().filter((c) => c.instance === "p3")).toHaveLength(2), { timeout: 10_000 });
    } finally {
      await Promise.all(instances.map((i) => i.pool.close()));
    }
  });

  it("keeps its connections while the store is away only as long as their leases surely hold", async () => {
    let away = false;
    const flaky: ReceiverSlots = new Proxy(slots, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) =>
          away ? Promise.reject(new StoreUnavailableError("away")) : value.apply(target, args);
      },
    });
    const lone = instance("lone", flaky, [workspace("ws_away")], 1_200);
    try {
      lone.pool.start();
      await vi.waitFor(() => expect(lone.receiver.open_.size).toBe(2), { timeout: 10_000 });
      away = true;
      await vi.waitFor(() => expect(lone.receiver.open_.size).toBe(0), { timeout: 10_000 });
      // Closed before its leases (as the database last renewed them) lapsed: no other instance could have held a
      // slot while this one still had it open.
      const [row] = await sql.query<{ lapses: Date }>(
        "select min(expires_at) as lapses from receiver_slots where workspace_id = 'ws_away'",
      );
      expect(lone.receiver.lastClosedAt).toBeLessThan(new Date(row?.lapses ?? 0).getTime());
      away = false;
      await vi.waitFor(() => expect(lone.receiver.open_.size).toBe(2), { timeout: 10_000 });
    } finally {
      await lone.pool.close();
    }
  });
});
