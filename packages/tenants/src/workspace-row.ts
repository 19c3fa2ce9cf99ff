import type { BotIdentity, Platform, WorkspaceSettingsInput } from "@resident/core";
import { timestamp } from "./timestamp.ts";

/** A workspace as the admin API sees it: everything but the credentials, of which only the field names show. */
export interface WorkspaceRecord {
  id: string;
  tenantId: string;
  platform: Platform;
  name: string;
  settings: WorkspaceSettingsInput;
  identity: BotIdentity;
  credentialFields: string[];
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
  created_at: Date | string;
  updated_at: Date | string;
}

export const workspaceColumns =
  "id, tenant_id, platform, name, credentials_ciphertext, credential_fields, settings, identity, created_at, updated_at";

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
    createdAt: timestamp(row.created_at),
    updatedAt: timestamp(row.updated_at),
  };
}
