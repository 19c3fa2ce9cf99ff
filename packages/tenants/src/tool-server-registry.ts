import type { ToolServer } from "@resident/core";
import type { AuditLog } from "./audit-log.ts";
import type { CredentialCipher } from "./credential-cipher.ts";
import { InvalidInputError } from "./errors.ts";
import { newToolServerId } from "./ids.ts";
import { assertTenantAccess, type Principal } from "./principal.ts";
import type { SqlClient, SqlExecutor } from "./sql-client.ts";
import { timestamp } from "./timestamp.ts";
import { type ToolServerInput, toolServerInputSchema } from "./tool-server-input.ts";
import { parseInput } from "./workspace-input.ts";

/** An attached MCP server as the admin API shows it: the auth header's name, never its value. */
export interface ToolServerRecord {
  id: string;
  workspaceId: string;
  name: string;
  url: string;
  authHeader?: { name: string };
  createdAt: string;
  updatedAt: string;
}

interface ToolServerRow {
  id: string;
  workspace_id: string;
  name: string;
  url: string;
  auth_header_name: string | null;
  auth_ciphertext: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const columns = "id, workspace_id, name, url, auth_header_name, auth_ciphertext, created_at, updated_at";
/** The auth header binds to its server's row: one server's ciphertext does not open as another's. */
const authContext = (serverId: string) => `tool-server:${serverId}`;

const toRecord = (row: ToolServerRow): ToolServerRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  name: row.name,
  url: row.url,
  ...(row.auth_header_name && { authHeader: { name: row.auth_header_name } }),
  createdAt: timestamp(row.created_at),
  updatedAt: timestamp(row.updated_at),
});

export interface ToolServerRegistryDeps {
  sql: SqlClient;
  cipher: CredentialCipher;
  audit: AuditLog;
  onWorkspaceChange: (workspaceId: string) => Promise<void>;
}

/**
 * The MCP servers attached to a tenant's workspaces. Every call is scoped by tenant and workspace: a tenant that
 * does not own the workspace finds nothing (undefined / false). Attaching and detaching are audited and change the
 * workspace, so every instance's directory — and so the agent — sees the new set at once.
 */
export class ToolServerRegistry {
  constructor(private readonly deps: ToolServerRegistryDeps) {}

  async attach(
    by: Principal,
    tenantId: string,
    workspaceId: string,
    input: ToolServerInput,
  ): Promise<ToolServerRecord | undefined> {
    assertTenantAccess(by, tenantId);
    const server = parseInput(toolServerInputSchema, input);
    const id = newToolServerId();
    const record = await this.deps.sql.transaction(async (tx) => {
      if (!(await ownsWorkspace(tx, tenantId, workspaceId))) return undefined;
      const [row] = await tx.query<ToolServerRow>(
        `insert into workspace_tool_servers (id, workspace_id, name, url, auth_header_name, auth_ciphertext)
         values ($1, $2, $3, $4, $5, $6) on conflict (workspace_id, name) do nothing returning ${columns}`,
        [
          id,
          workspaceId,
          server.name,
          server.url,
          server.authHeader?.name ?? null,
          server.authHeader ? this.deps.cipher.seal(server.authHeader.value, authContext(id)) : null,
        ],
      );
      if (!row) throw new InvalidInputError([`name: this workspace has a tool server named ${server.name} already`]);
      await this.deps.audit.record(tx, {
        tenantId,
        actor: by,
        action: "tool-server.attach",
        target: workspaceId,
        detail: { fields: ["name", "url", ...(server.authHeader ? ["authHeader"] : [])] },
      });
      return toRecord(row);
    });
    if (record) await this.deps.onWorkspaceChange(workspaceId);
    return record;
  }

  /** Undefined when the tenant has no such workspace. */
  async list(by: Principal, tenantId: string, workspaceId: string): Promise<ToolServerRecord[] | undefined> {
    assertTenantAccess(by, tenantId);
    if (!(await ownsWorkspace(this.deps.sql, tenantId, workspaceId))) return undefined;
    return (await serverRows(this.deps.sql, workspaceId)).map(toRecord);
  }

  /** False when the tenant's workspace has no such server. */
  async detach(by: Principal, tenantId: string, workspaceId: string, serverId: string): Promise<boolean> {
    assertTenantAccess(by, tenantId);
    const detached = await this.deps.sql.transaction(async (tx) => {
      const rows = await tx.query(
        `delete from workspace_tool_servers s using workspaces w
         where s.id = $1 and s.workspace_id = $2 and w.id = s.workspace_id and w.tenant_id = $3 returning s.id`,
        [serverId, workspaceId, tenantId],
      );
      if (rows.length === 0) return false;
      await this.deps.audit.record(tx, { tenantId, actor: by, action: "tool-server.detach", target: workspaceId });
      return true;
    });
    if (detached) await this.deps.onWorkspaceChange(workspaceId);
    return detached;
  }
}

/** A workspace's servers with their auth headers opened, for the pipeline (the directory). */
export async function loadToolServers(
  sql: SqlExecutor,
  cipher: CredentialCipher,
  workspaceId: string,
): Promise<ToolServer[]> {
  return (await serverRows(sql, workspaceId)).map((row) => ({
    id: row.id,
    name: row.name,
    url: row.url,
    ...(row.auth_header_name &&
      row.auth_ciphertext && {
        authHeader: {
          name: row.auth_header_name,
          value: String(cipher.open(row.auth_ciphertext, authContext(row.id))),
        },
      }),
    updatedAt: timestamp(row.updated_at),
  }));
}

function serverRows(sql: SqlExecutor, workspaceId: string): Promise<ToolServerRow[]> {
  return sql.query<ToolServerRow>(
    `select ${columns} from workspace_tool_servers where workspace_id = $1 order by created_at, id`,
    [workspaceId],
  );
}

async function ownsWorkspace(sql: SqlExecutor, tenantId: string, workspaceId: string): Promise<boolean> {
  const rows = await sql.query("select 1 from workspaces where id = $1 and tenant_id = $2", [workspaceId, tenantId]);
  return rows.length > 0;
}
