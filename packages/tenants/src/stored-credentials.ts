import type { CredentialStore } from "@resident/core";
import type { AuditLog } from "./audit-log.ts";
import type { CredentialCipher } from "./credential-cipher.ts";
import type { SqlClient } from "./sql-client.ts";
import { setFieldNames } from "./workspace-input.ts";
import { credentialsContext } from "./workspace-row.ts";

export interface StoredCredentialsOptions {
  sql: SqlClient;
  cipher: CredentialCipher;
  audit: AuditLog;
  onWorkspaceChange: (workspaceId: string) => Promise<void>;
}

/**
 * The lock is the workspace's row, taken with SELECT … FOR UPDATE in a transaction that also stores the change: a
 * second instance's change waits on the row, then reads the version the first committed (READ COMMITTED re-reads a
 * locked row once its holder is done). A holder that dies (kill -9) closes its connection and PostgreSQL rolls its
 * transaction back at once, freeing the row; one that hangs with its connection open is cut off by
 * idle_in_transaction_session_timeout. A waiter gives up after lock_timeout rather than hold a worker for ever.
 * No migration is needed: the row is the lock, and plain reads of it (the directory's) never wait on it.
 */
export class StoredCredentials implements CredentialStore {
  constructor(private readonly options: StoredCredentialsOptions) {}

  async change<C>(workspaceId: string, change: (stored: C) => Promise<C | undefined>): Promise<C> {
    const { sql, cipher, audit } = this.options;
    const context = credentialsContext(workspaceId);
    let changed = false;
    const result = await sql.transaction(async (tx) => {
      await tx.query(`set local lock_timeout = '${lockTimeout}'`);
      await tx.query(`set local idle_in_transaction_session_timeout = '${holdTimeout}'`);
      const [row] = await tx.query<{ tenant_id: string; credentials_ciphertext: string }>(
        "select tenant_id, credentials_ciphertext from workspaces where id = $1 for update",
        [workspaceId],
      );
      if (!row) throw new Error(`workspace ${workspaceId} is gone`);
      const stored = cipher.open(row.credentials_ciphertext, context) as C;
      const next = await change(stored);
      if (next === undefined) return stored;
      await tx.query(
        `update workspaces set credentials_ciphertext = $2, credential_fields = $3::jsonb, updated_at = now()
         where id = $1`,
        [workspaceId, cipher.seal(next, context), JSON.stringify(setFieldNames(next as Record<string, unknown>))],
      );
      await audit.record(tx, {
        tenantId: row.tenant_id,
        actor: "system",
        action: "workspace.credentials.rotate",
        target: workspaceId,
      });
      changed = true;
      return next;
    });
    if (changed) await this.options.onWorkspaceChange(workspaceId);
    return result;
  }
}

/** Longer than a refresh call may take (the Slack client's 10 s timeout) with room to spare. */
const holdTimeout = "30s";
/** A waiter waits at most for one holder's whole hold. */
const lockTimeout = "35s";
