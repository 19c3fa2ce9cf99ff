import type { Platform } from "@resident/core";
import type { AuditEntry, AuditLog } from "./audit-log.ts";
import { changedFields } from "./changed-fields.ts";
import type { CredentialCipher } from "./credential-cipher.ts";
import { InvalidInputError, UnknownTenantError } from "./errors.ts";
import { newTenantId, newWorkspaceId } from "./ids.ts";
import { assertOperator, assertTenantAccess, type Principal } from "./principal.ts";
import type { SqlClient } from "./sql-client.ts";
import { timestamp } from "./timestamp.ts";
import {
  mergeSettings,
  parseInput,
  setFieldNames,
  type TenantInput,
  type TenantPatch,
  tenantInputSchema,
  tenantPatchSchema,
  type WorkspaceInput,
  type WorkspacePatch,
  workspaceInputSchema,
  workspacePatchSchema,
} from "./workspace-input.ts";
import {
  credentialsContext,
  insertWorkspace,
  toWorkspaceRecord,
  type WorkspaceRecord,
  type WorkspaceRow,
  workspaceColumns,
} from "./workspace-row.ts";

export interface TenantRecord {
  id: string;
  name: string;
  createdAt: string;
  /** Whether the tenant's own admins may issue more admin tokens (the operator's choice; default false). */
  adminsMayIssueTokens: boolean;
}

interface TenantRow {
  id: string;
  name: string;
  created_at: Date | string;
  admins_issue_tokens: boolean;
}

const tenantColumns = "id, name, created_at, admins_issue_tokens";
const toTenantRecord = (row: TenantRow): TenantRecord => ({
  id: row.id,
  name: row.name,
  createdAt: timestamp(row.created_at),
  adminsMayIssueTokens: row.admins_issue_tokens,
});

export interface TenantRegistryDeps {
  sql: SqlClient;
  cipher: CredentialCipher;
  audit: AuditLog;
  /** Told every workspace id that was created, changed or deleted, after the change is committed. */
  onWorkspaceChange: (workspaceId: string) => Promise<void>;
  /** The platforms a workspace may be of. */
  platforms: readonly Platform[];
}

const maxAuditLimit = 1_000;

/**
 * Tenants and their workspaces, as the admin API manages them. Every call names who is calling: the operator acts
 * on any tenant, a tenant admin on its own only (AccessDeniedError otherwise). Workspace calls are scoped by tenant:
 * a tenant that does not own a workspace finds nothing. Every change is audited in its own transaction.
 */
export class TenantRegistry {
  private readonly workspaceInput: ReturnType<typeof workspaceInputSchema>;

  constructor(private readonly deps: TenantRegistryDeps) {
    this.workspaceInput = workspaceInputSchema(deps.platforms);
  }

  async createTenant(by: Principal, input: TenantInput): Promise<TenantRecord> {
    assertOperator(by);
    const { name } = parseInput(tenantInputSchema, input);
    const id = newTenantId();
    return this.deps.sql.transaction(async (tx) => {
      const [row] = await tx.query<TenantRow>(
        `insert into tenants (id, name) values ($1, $2) returning ${tenantColumns}`,
        [id, name],
      );
      await this.deps.audit.record(tx, {
        tenantId: id,
        actor: by,
        action: "tenant.create",
        target: id,
        detail: { fields: ["name"] },
      });
      return toTenantRecord(row as TenantRow);
    });
  }

  /** Every tenant for the operator; a tenant admin sees its own. */
  async listTenants(by: Principal): Promise<TenantRecord[]> {
    const rows = await this.deps.sql.query<TenantRow>(
      `select ${tenantColumns} from tenants where $1::text is null or id = $1 order by created_at, id`,
      [by.role === "tenant" ? by.tenantId : null],
    );
    return rows.map(toTenantRecord);
  }

  async getTenant(by: Principal, tenantId: string): Promise<TenantRecord | undefined> {
    assertTenantAccess(by, tenantId);
    const [row] = await this.deps.sql.query<TenantRow>(`select ${tenantColumns} from tenants where id = $1`, [
      tenantId,
    ]);
    return row && toTenantRecord(row);
  }

  /** The operator renames a tenant or decides whether its admins may issue tokens. Undefined: no such tenant. */
  async updateTenant(by: Principal, tenantId: string, patch: TenantPatch): Promise<TenantRecord | undefined> {
    assertOperator(by);
    const change = parseInput(tenantPatchSchema, patch);
    return this.deps.sql.transaction(async (tx) => {
      const [current] = await tx.query<TenantRow>(`select ${tenantColumns} from tenants where id = $1 for update`, [
        tenantId,
      ]);
      if (!current) return undefined;
      const name = change.name ?? current.name;
      const adminsIssueTokens = change.adminsMayIssueTokens ?? current.admins_issue_tokens;
      const fields = [
        ...(name === current.name ? [] : ["name"]),
        ...(adminsIssueTokens === current.admins_issue_tokens ? [] : ["adminsMayIssueTokens"]),
      ];
      if (fields.length === 0) return toTenantRecord(current);
      const [row] = await tx.query<TenantRow>(
        `update tenants set name = $2, admins_issue_tokens = $3 where id = $1 returning ${tenantColumns}`,
        [tenantId, name, adminsIssueTokens],
      );
      await this.deps.audit.record(tx, {
        tenantId,
        actor: by,
        action: "tenant.update",
        target: tenantId,
        detail: { fields },
      });
      return toTenantRecord(row as TenantRow);
    });
  }

  /** Throws UnknownTenantError when the tenant does not exist. */
  async createWorkspace(by: Principal, tenantId: string, input: WorkspaceInput): Promise<WorkspaceRecord> {
    assertTenantAccess(by, tenantId);
    const workspace = parseInput(this.workspaceInput, input);
    const id = newWorkspaceId();
    const record = await this.deps.sql.transaction(async (tx) => {
      const row = await insertWorkspace(tx, this.deps.cipher, id, tenantId, workspace);
      if (!row) throw new UnknownTenantError(tenantId);
      const fields = [
        "name",
        ...changedFields("credentials", {}, workspace.credentials),
        ...changedFields("settings", {}, workspace.settings),
        ...changedFields("identity", {}, workspace.identity),
      ];
      await this.deps.audit.record(tx, {
        tenantId,
        actor: by,
        action: "workspace.create",
        target: id,
        detail: { platform: workspace.platform, fields },
      });
      return toWorkspaceRecord(row);
    });
    await this.deps.onWorkspaceChange(id);
    return record;
  }

  async listWorkspaces(by: Principal, tenantId: string): Promise<WorkspaceRecord[]> {
    assertTenantAccess(by, tenantId);
    const rows = await this.deps.sql.query<WorkspaceRow>(
      `select ${workspaceColumns} from workspaces where tenant_id = $1 order by created_at, id`,
      [tenantId],
    );
    return rows.map(toWorkspaceRecord);
  }

  async getWorkspace(by: Principal, tenantId: string, workspaceId: string): Promise<WorkspaceRecord | undefined> {
    assertTenantAccess(by, tenantId);
    const [row] = await this.deps.sql.query<WorkspaceRow>(
      `select ${workspaceColumns} from workspaces where id = $1 and tenant_id = $2`,
      [workspaceId, tenantId],
    );
    return row && toWorkspaceRecord(row);
  }

  /**
   * Applies a patch: a new name, new credentials (replacing the old ones whole), settings (merged: a value sets,
   * null resets to the default), a new identity. Undefined when the tenant has no such workspace.
   */
  async updateWorkspace(
    by: Principal,
    tenantId: string,
    workspaceId: string,
    patch: WorkspacePatch,
  ): Promise<WorkspaceRecord | undefined> {
    assertTenantAccess(by, tenantId);
    const change = parseInput(workspacePatchSchema, patch);
    const outcome = await this.deps.sql.transaction(async (tx) => {
      const [current] = await tx.query<WorkspaceRow>(
        `select ${workspaceColumns} from workspaces where id = $1 and tenant_id = $2 for update`,
        [workspaceId, tenantId],
      );
      if (!current) return undefined;
      const context = credentialsContext(workspaceId);
      const name = change.name ?? current.name;
      const settings = change.settings ? mergeSettings(current.settings, change.settings) : current.settings;
      const identity = change.identity ?? current.identity;
      const fields = [
        ...(name === current.name ? [] : ["name"]),
        ...(change.credentials
          ? changedFields(
              "credentials",
              this.deps.cipher.open(current.credentials_ciphertext, context) as object,
              change.credentials,
            )
          : []),
        ...changedFields("settings", current.settings, settings),
        ...(JSON.stringify(identity) === JSON.stringify(current.identity) ? [] : ["identity"]),
      ];
      if (fields.length === 0) return { record: toWorkspaceRecord(current), changed: false };
      const credentials = change.credentials;
      const [row] = await tx.query<WorkspaceRow>(
        `update workspaces set name = $3, credentials_ciphertext = coalesce($4, credentials_ciphertext),
           credential_fields = coalesce($5::jsonb, credential_fields), settings = $6::jsonb, identity = $7::jsonb,
           updated_at = now()
         where id = $1 and tenant_id = $2 returning ${workspaceColumns}`,
        [
          workspaceId,
          tenantId,
          name,
          credentials ? this.deps.cipher.seal(credentials, context) : null,
          credentials ? JSON.stringify(setFieldNames(credentials)) : null,
          JSON.stringify(settings),
          JSON.stringify(identity),
        ],
      );
      await this.deps.audit.record(tx, {
        tenantId,
        actor: by,
        action: "workspace.update",
        target: workspaceId,
        detail: { fields },
      });
      return { record: toWorkspaceRecord(row as WorkspaceRow), changed: true };
    });
    if (outcome?.changed) await this.deps.onWorkspaceChange(workspaceId);
    return outcome?.record;
  }

  /** False when the tenant has no such workspace. */
  async deleteWorkspace(by: Principal, tenantId: string, workspaceId: string): Promise<boolean> {
    assertTenantAccess(by, tenantId);
    const deleted = await this.deps.sql.transaction(async (tx) => {
      const rows = await tx.query("delete from workspaces where id = $1 and tenant_id = $2 returning id", [
        workspaceId,
        tenantId,
      ]);
      if (rows.length === 0) return false;
      await this.deps.audit.record(tx, { tenantId, actor: by, action: "workspace.delete", target: workspaceId });
      return true;
    });
    if (deleted) await this.deps.onWorkspaceChange(workspaceId);
    return deleted;
  }

  /**
   * Newest first, `limit` entries after the entry `before` (its id) if given. A tenant admin reads its own tenant's
   * entries; the operator any tenant's, or all.
   */
  async listAudit(
    by: Principal,
    options: { tenantId?: string; limit?: number; before?: string } = {},
  ): Promise<AuditEntry[]> {
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > maxAuditLimit) {
      throw new InvalidInputError([`limit: must be an integer from 1 to ${maxAuditLimit}`]);
    }
    if (options.before !== undefined && !/^[1-9]\d{0,17}$/.test(options.before)) {
      throw new InvalidInputError(["before: must be an audit entry id"]);
    }
    if (options.tenantId !== undefined) assertTenantAccess(by, options.tenantId);
    const tenantId = by.role === "tenant" ? by.tenantId : options.tenantId;
    return this.deps.audit.list(tenantId, limit, options.before);
  }
}
