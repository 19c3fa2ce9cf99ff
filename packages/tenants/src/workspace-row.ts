import type { BotIdentity, Platform, WorkspaceSettingsInput } from "@resident/core";
import type { CredentialCipher } from "./credential-cipher.ts";
import type { SqlExecutor } from "./sql-client.ts";
import { timestamp } from "./timestamp.ts";
import { setFieldNames } from "./workspace-input.ts";

/** A workspace as the admin API sees it: everything but the credentials, of which only the field names show. */
export interface WorkspaceRecord {
  id: string;
  tenantId: string;
  platform: Platform;
  name: string;
  settings: WorkspaceSettingsInput;
  identity: BotIdentity;
  credentialFields: string[];
  /** Set when the platform took our access away (the app uninstalled, its token revoked): it answers nothing. */
  disabled?: { at: string; reason: string };
  /** An installation of the operator's distributed app: its events arrive at the app's one URL. */
  installed: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface WorkspaceRow {
  id: string;
  tenant_id: string;
  platform: Platform;
  name: string;
  credentials_ciphertext: string;
  credential_fields: string[];
  settings: WorkspaceSettingsInput;
  identity: BotIdentity;
  disabled_at: Date | string | null;
  disabled_reason: string | null;
  installed: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

export const workspaceColumns =
  "id, tenant_id, platform, name, credentials_ciphertext, credential_fields, settings, identity, disabled_at, disabled_reason, created_at, updated_at, exists (select 1 from app_installations i where i.workspace_id = workspaces.id) as installed";

/** The credentials bind to their row: the ciphertext of one workspace does not open as another's. */
export const credentialsContext = (workspaceId: string) => `workspace:${workspaceId}`;

export function toWorkspaceRecord(row: WorkspaceRow): WorkspaceRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    platform: row.platform,
    name: row.name,
    settings: row.settings,
    identity: row.identity,
    credentialFields: row.credential_fields,
    ...(row.disabled_at ? { disabled: { at: timestamp(row.disabled_at), reason: row.disabled_reason ?? "" } } : {}),
    installed: row.installed,
    createdAt: timestamp(row.created_at),
    updatedAt: timestamp(row.updated_at),
  };
}

/** What a new workspace row is made of, checked already. */
export interface NewWorkspaceRow {
  platform: Platform;
  name: string;
  credentials: Record<string, unknown>;
  settings: WorkspaceSettingsInput;
  identity: BotIdentity;
}

/** Inserts a workspace of `tenantId`, its credentials sealed to its id; undefined when the tenant does not exist. */
export async function insertWorkspace(
  tx: SqlExecutor,
  cipher: CredentialCipher,
  id: string,
  tenantId: string,
  workspace: NewWorkspaceRow,
): Promise<WorkspaceRow | undefined> {
  const [row] = await tx.query<WorkspaceRow>(
    `insert into workspaces (id, tenant_id, platform, name, credentials_ciphertext, credential_fields, settings, identity)
     select $1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8::jsonb where exists (select 1 from tenants where id = $2)
     returning ${workspaceColumns}`,
    [
      id,
      tenantId,
      workspace.platform,
      workspace.name,
      cipher.seal(workspace.credentials, credentialsContext(id)),
      JSON.stringify(setFieldNames(workspace.credentials)),
      JSON.stringify(workspace.settings),
      JSON.stringify(workspace.identity),
    ],
  );
  return row;
}
