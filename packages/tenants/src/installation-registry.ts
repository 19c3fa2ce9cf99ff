import { createHash, randomBytes } from "node:crypto";
import type { AppInstallations, InstallBinding, NewInstallation, Platform } from "@resident/core";
import type { AuditLog } from "./audit-log.ts";
import type { CredentialCipher } from "./credential-cipher.ts";
import { InvalidInputError } from "./errors.ts";
import { newWorkspaceId } from "./ids.ts";
import type { Principal } from "./principal.ts";
import type { SqlClient } from "./sql-client.ts";
import { setFieldNames } from "./workspace-input.ts";
import { credentialsContext, insertWorkspace } from "./workspace-row.ts";

export interface InstallationRegistryDeps {
  sql: SqlClient;
  cipher: CredentialCipher;
  audit: AuditLog;
  onWorkspaceChange: (workspaceId: string) => Promise<void>;
}

/** Refused: the installation belongs to a workspace of another tenant. */
export class InstallationTakenError extends InvalidInputError {
  constructor() {
    super(["installation: this workspace is already installed for another tenant"]);
  }
}

/** Only a hash of a state is kept: a database reader cannot finish someone's install with it. */
const stateHash = (state: string) => createHash("sha256").update(state).digest("base64url");

interface TakenState {
  tenant_id: string;
  token_id: string | null;
  usable: boolean;
}

/**
 * The installations of the operator's distributed apps (migration 009): each is a workspace of the tenant whose admin
 * installed it, its tokens sealed in the workspace's credentials, found by the key the app's deliveries name it by.
 * Also the states of the installs begun, each taken at most once.
 */
export class InstallationRegistry implements AppInstallations {
  constructor(private readonly deps: InstallationRegistryDeps) {}

  async beginInstall(platform: Platform, binding: InstallBinding, ttlMs: number): Promise<string> {
    const state = randomBytes(32).toString("base64url");
    await this.deps.sql.query("delete from install_states where expires_at < now()");
    await this.deps.sql.query(
      `insert into install_states (state_hash, platform, tenant_id, token_id, expires_at)
       values ($1, $2, $3, $4, now() + $5::integer * interval '1 millisecond')`,
      [stateHash(state), platform, binding.tenantId, binding.tokenId ?? null, Math.ceil(ttlMs)],
    );
    return state;
  }

  /** Deleting is taking: of two callbacks racing with one state, one gets the row. */
  async takeInstall(platform: Platform, state: string): Promise<InstallBinding | undefined> {
    const [row] = await this.deps.sql.query<TakenState>(
      `delete from install_states s where state_hash = $1 and platform = $2
       returning tenant_id, token_id, expires_at > now() and (token_id is null or exists (
         select 1 from admin_tokens t where t.id = s.token_id and t.tenant_id = s.tenant_id
           and (t.expires_at is null or t.expires_at > now()))) as usable`,
      [stateHash(state), platform],
    );
    if (!row?.usable) return undefined;
    return { tenantId: row.tenant_id, ...(row.token_id ? { tokenId: row.token_id } : {}) };
  }

  async install(installation: NewInstallation): Promise<{ workspaceId: string; tenantId: string }> {
    const { platform, binding, key, name, credentials, identity } = installation;
    const by: Principal = binding.tokenId
      ? { role: "tenant", tenantId: binding.tenantId, tokenId: binding.tokenId }
      : { role: "operator" };
    const workspaceId = await this.deps.sql.transaction(async (tx) => {
      // Two installs of one team at once take turns here, so the second finds the first's row.
      await tx.query("select pg_advisory_xact_lock(hashtext($1))", [`install:${platform}:${key}`]);
      const [existing] = await tx.query<{ workspace_id: string; tenant_id: string }>(
        `select i.workspace_id, w.tenant_id from app_installations i join workspaces w on w.id = i.workspace_id
         where i.platform = $1 and i.install_key = $2`,
        [platform, key],
      );
      if (existing && existing.tenant_id !== binding.tenantId) throw new InstallationTakenError();
      const fields = ["credentials", "identity"];
      let target: string;
      if (existing) {
        target = existing.workspace_id;
        await tx.query(
          `update workspaces set name = $2, credentials_ciphertext = $3, credential_fields = $4::jsonb,
             identity = $5::jsonb, disabled_at = null, disabled_reason = null, updated_at = now() where id = $1`,
          [
            existing.workspace_id,
            name,
            this.deps.cipher.seal(credentials, credentialsContext(existing.workspace_id)),
            JSON.stringify(setFieldNames(credentials)),
            JSON.stringify(identity),
          ],
        );
      } else {
        target = newWorkspaceId();
        const row = await insertWorkspace(tx, this.deps.cipher, target, binding.tenantId, {
          platform,
          name,
          credentials,
          settings: {},
          identity,
        });
        if (!row) throw new InvalidInputError(["tenant: no longer exists"]);
        await tx.query("insert into app_installations (platform, install_key, workspace_id) values ($1, $2, $3)", [
          platform,
          key,
          target,
        ]);
      }
      await this.deps.audit.record(tx, {
        tenantId: binding.tenantId,
        actor: by,
        action: existing ? "workspace.reinstall" : "workspace.install",
        target,
        detail: { platform, fields },
      });
      return target;
    });
    await this.deps.onWorkspaceChange(workspaceId);
    return { workspaceId, tenantId: binding.tenantId };
  }

  async workspaceFor(platform: Platform, keys: readonly string[]): Promise<string | undefined> {
    if (keys.length === 0) return undefined;
    const rows = await this.deps.sql.query<{ install_key: string; workspace_id: string }>(
      `select install_key, workspace_id from app_installations
       where platform = $1 and install_key in (select jsonb_array_elements_text($2::jsonb))`,
      [platform, JSON.stringify(keys)],
    );
    const byKey = new Map(rows.map((row) => [row.install_key, row.workspace_id]));
    return keys.map((key) => byKey.get(key)).find((id) => id !== undefined);
  }

  async disable(workspaceId: string, reason: string): Promise<void> {
    const disabled = await this.deps.sql.transaction(async (tx) => {
      const [row] = await tx.query<{ tenant_id: string }>(
        `update workspaces set disabled_at = now(), disabled_reason = $2, updated_at = now()
         where id = $1 and disabled_at is null returning tenant_id`,
        [workspaceId, reason],
      );
      if (!row) return false;
      await this.deps.audit.record(tx, {
        tenantId: row.tenant_id,
        actor: "system",
        action: "workspace.disable",
        target: workspaceId,
        detail: { fields: ["disabled"] },
      });
      return true;
    });
    if (disabled) await this.deps.onWorkspaceChange(workspaceId);
  }
}
