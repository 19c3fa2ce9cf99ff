import { join } from "node:path";
import type { ChangeFeed, FailMode, Logger, Platform } from "@resident/core";
import { AdminTokens } from "./admin-tokens.ts";
import { AuditLog } from "./audit-log.ts";
import { BudgetRegistry } from "./budget-registry.ts";
import { CachingDirectory } from "./caching-directory.ts";
import { CredentialCipher } from "./credential-cipher.ts";
import { PgFeedbackLedger } from "./feedback-ledger.ts";
import { InstallationRegistry } from "./installation-registry.ts";
import { migrate } from "./migrate.ts";
import { sharedPassphraseSalt } from "./passphrase-salt.ts";
import { PgliteClient } from "./pglite-client.ts";
import { PostgresClient } from "./postgres-client.ts";
import { loadSecretKey } from "./secret-key.ts";
import { checkSecretKey } from "./secret-key-check.ts";
import type { SqlClient } from "./sql-client.ts";
import { StoredCredentials } from "./stored-credentials.ts";
import { TenantRegistry } from "./tenant-registry.ts";
import { ToolServerRegistry } from "./tool-server-registry.ts";

export interface TenantsOptions {
  /** DATABASE_URL. Unset: embedded PGlite in `<dataDir>/pglite`, for a single instance. */
  databaseUrl?: string;
  /** DATA_DIR: holds the embedded database and the generated secret.key. */
  dataDir: string;
  /** SECRET_KEY. Unset: a key generated once into `<dataDir>/secret.key`, with a warning. */
  secretKey?: string;
  logger: Logger;
  /** Carries workspace changes to every instance's directory. */
  changeFeed: ChangeFeed;
  /** The platforms the service serves (their descriptors' ids): a workspace of any other is refused. */
  platforms: readonly Platform[];
  /** The platforms' defaultFailMode; "closed" where not given. */
  defaultFailModes?: Partial<Record<Platform, FailMode>>;
  /** How long the directory trusts a cached workspace without a change notice. Default 30 s. */
  cacheTtlMs?: number;
}

export interface Tenants {
  registry: TenantRegistry;
  /** Tenants' and workspaces' budgets. */
  budgets: BudgetRegistry;
  tokens: AdminTokens;
  /** The MCP servers attached to workspaces. */
  toolServers: ToolServerRegistry;
  /** The votes on answers (feedback buttons), per workspace and day. */
  feedback: PgFeedbackLedger;
  directory: CachingDirectory;
  /** Workspaces' credentials changed by the service itself, once across the cluster (a rotating token's refresh). */
  credentials: StoredCredentials;
  /** Installations of the operator's distributed apps, and the states of the installs begun. */
  installations: InstallationRegistry;
  /** The database itself, for other parts that keep shared state in it (the PostgreSQL lane). */
  sql: SqlClient;
  /** True when the database answers (for /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** PostgreSQL when DATABASE_URL is set, else embedded PGlite under DATA_DIR. */
export async function openDatabase(
  options: Pick<TenantsOptions, "databaseUrl" | "dataDir" | "logger">,
): Promise<SqlClient> {
  return options.databaseUrl
    ? new PostgresClient(options.databaseUrl, options.logger)
    : PgliteClient.open(join(options.dataDir, "pglite"));
}

/**
 * Opens the tenant database, applies pending migrations, and refuses a SECRET_KEY that does not open the stored
 * credentials (WrongSecretKeyError).
 */
export async function openTenants(options: TenantsOptions): Promise<Tenants> {
  return createTenants(await openDatabase(options), options);
}

/** Builds the tenants' parts on an open database, which it then owns: `close()` (or a failure here) closes it. */
export async function createTenants(sql: SqlClient, options: Omit<TenantsOptions, "databaseUrl">): Promise<Tenants> {
  const { logger, changeFeed } = options;
  let cipher: CredentialCipher;
  try {
    const applied = await migrate(sql);
    if (applied.length > 0) logger.info({ versions: applied }, "tenant database migrated");
    cipher = new CredentialCipher(await loadSecretKey({ ...options, passphraseSalt: () => sharedPassphraseSalt(sql) }));
    await checkSecretKey(sql, cipher);
  } catch (error) {
    await sql.close();
    throw error;
  }

  const directory = new CachingDirectory({
    sql,
    cipher,
    changeFeed,
    defaultFailModes: options.defaultFailModes,
    ttlMs: options.cacheTtlMs,
  });
  const audit = new AuditLog(sql, logger);
  const onWorkspaceChange = async (workspaceId: string) => {
    // This instance forgets at once even if the feed is down; the others rely on the feed, then on the TTL.
    directory.forget(workspaceId);
    try {
      await changeFeed.publish(workspaceId);
    } catch (error) {
      logger.warn({ workspaceId, err: (error as Error).message }, "workspace change not published");
    }
  };

  return {
    registry: new TenantRegistry({ sql, cipher, audit, onWorkspaceChange, platforms: options.platforms }),
    budgets: new BudgetRegistry({ sql, audit, onWorkspaceChange }),
    tokens: new AdminTokens(sql, audit),
    toolServers: new ToolServerRegistry({ sql, cipher, audit, onWorkspaceChange }),
    feedback: new PgFeedbackLedger(sql),
    directory,
    credentials: new StoredCredentials({ sql, cipher, audit, onWorkspaceChange }),
    installations: new InstallationRegistry({ sql, cipher, audit, onWorkspaceChange }),
    sql,
    async ping() {
      try {
        await sql.query("select 1");
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      directory.close();
      await sql.close();
    },
  };
}
