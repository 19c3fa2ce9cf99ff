import type { Logger } from "@resident/core";
import { type Actor, actorName } from "./principal.ts";
import type { SqlExecutor } from "./sql-client.ts";
import { timestamp } from "./timestamp.ts";

/** What changed, never to what: `fields` names the fields, and no value ever goes into `detail`. */
export interface AuditDetail {
  fields?: string[];
  platform?: string;
}

export interface AuditEntry {
  id: string;
  tenantId: string | null;
  actor: string;
  action: string;
  target: string;
  detail: AuditDetail;
  at: string;
}

export interface AuditEvent {
  tenantId: string | null;
  actor: Actor;
  action: string;
  target: string;
  detail?: AuditDetail;
}

interface AuditRow {
  id: string;
  tenant_id: string | null;
  actor: string;
  action: string;
  target: string;
  detail: AuditDetail;
  at: Date | string;
}

/** The audit trail, written in the transaction of the change it records, and echoed to the log. */
export class AuditLog {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly logger: Logger,
  ) {}

  async record(tx: SqlExecutor, event: AuditEvent): Promise<void> {
    const actor = actorName(event.actor);
    const detail = event.detail ?? {};
    await tx.query(
      "insert into audit_log (tenant_id, actor, action, target, detail) values ($1, $2, $3, $4, $5::jsonb)",
      [event.tenantId, actor, event.action, event.target, JSON.stringify(detail)],
    );
    this.logger.info({ tenantId: event.tenantId, actor, target: event.target, detail }, event.action);
  }

  /**
   * Newest first — by time, then by id as a number — `limit` at a time; `before` (an entry's id) continues a listing
   * after that entry. Every tenant's entries when `tenantId` is undefined.
   */
  async list(tenantId: string | undefined, limit: number, before?: string): Promise<AuditEntry[]> {
    const rows = await this.sql.query<AuditRow>(
      `select id::text as id, tenant_id, actor, action, target, detail, at from audit_log
       where ($1::text is null or tenant_id = $1)
         and ($3::bigint is null or (at, audit_log.id) < (select at, id from audit_log where id = $3::bigint))
       order by at desc, audit_log.id desc limit $2`,
      [tenantId ?? null, limit, before ?? null],
    );
    return rows.map((row) => ({
      id: row.id,
      tenantId: row.tenant_id,
      actor: row.actor,
      action: row.action,
      target: row.target,
      detail: row.detail,
      at: timestamp(row.at),
    }));
  }
}
