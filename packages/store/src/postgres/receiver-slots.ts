import { randomBytes } from "node:crypto";
import type { ConnectionState, HeldSlot, ReceiverSlots } from "@resident/core";
import { type LaneSql, laneCall, msFromNow } from "./sql.ts";

/** Takes the slot when it is absent or its lease lapsed, in one statement (as atomic as SET NX). */
const takeStatement = `
insert into receiver_slots as s (workspace_id, slot, instance_id, token, state, since, expires_at)
values ($1, $2, $3, $4, 'connecting', now(), ${msFromNow(5)})
on conflict (workspace_id, slot) do update
  set instance_id = excluded.instance_id, token = excluded.token, state = 'connecting', since = now(),
      expires_at = excluded.expires_at
  where s.expires_at <= now()
returning token`;

const heldBy = "workspace_id = $1 and slot = $2 and token = $3 and expires_at > now()";

type SlotRow = {
  workspace_id: string;
  slot: number;
  instance_id: string;
  state: ConnectionState;
  since: Date | string;
};

/**
 * ReceiverSlots on PostgreSQL (the receiver_slots and receiver_instances tables of @resident/tenants' migration
 * 007), on the database every instance shares: the connections stay coordinated while Redis is away, and they are a
 * few statements per slot every few seconds, no hot path. Expiry is judged by the server's clock in every statement.
 */
export class PgReceiverSlots implements ReceiverSlots {
  constructor(private readonly sql: LaneSql) {}

  heartbeat(instanceId: string, ttlMs: number): Promise<number> {
    return laneCall("receiver heartbeat", async () => {
      await this.sql.query(
        `insert into receiver_instances (instance_id, expires_at) values ($1, ${msFromNow(2)})
         on conflict (instance_id) do update set expires_at = excluded.expires_at`,
        [instanceId, ttlMs],
      );
      await this.sql.query("delete from receiver_instances where expires_at <= now() - interval '1 hour'");
      const [row] = await this.sql.query<{ live: number | string }>(
        "select count(*) as live from receiver_instances where expires_at > now()",
      );
      return Number(row?.live ?? 1);
    });
  }

  take(workspaceId: string, slot: number, instanceId: string, ttlMs: number): Promise<string | undefined> {
    const token = randomBytes(16).toString("base64url");
    return laneCall("receiver take", async () => {
      const [row] = await this.sql.query<{ token: string }>(takeStatement, [
        workspaceId,
        slot,
        instanceId,
        token,
        ttlMs,
      ]);
      return row?.token;
    });
  }

  renew(workspaceId: string, slot: number, token: string, state: ConnectionState, ttlMs: number): Promise<boolean> {
    return laneCall("receiver renew", async () => {
      const rows = await this.sql.query(
        `update receiver_slots set state = $4, expires_at = ${msFromNow(5)} where ${heldBy} returning 1`,
        [workspaceId, slot, token, state, ttlMs],
      );
      return rows.length === 1;
    });
  }

  release(workspaceId: string, slot: number, token: string): Promise<void> {
    return laneCall("receiver release", async () => {
      await this.sql.query(`delete from receiver_slots where ${heldBy}`, [workspaceId, slot, token]);
    });
  }

  held(workspaceId: string): Promise<HeldSlot[]> {
    return laneCall("receiver slots", async () => {
      const rows = await this.sql.query<SlotRow>(
        `select workspace_id, slot, instance_id, state, since from receiver_slots
         where workspace_id = $1 and expires_at > now() order by slot`,
        [workspaceId],
      );
      return rows.map((row) => ({
        workspaceId: row.workspace_id,
        slot: row.slot,
        instanceId: row.instance_id,
        state: row.state,
        since: new Date(row.since).toISOString(),
      }));
    });
  }

  leave(instanceId: string): Promise<void> {
    return laneCall("receiver leave", async () => {
      await this.sql.query("delete from receiver_instances where instance_id = $1", [instanceId]);
    });
  }
}
