import {
  type Budget,
  type ChangeFeed,
  DatabaseUnavailableError,
  type FailMode,
  type Platform,
  type ReceiverCatalog,
  resolveSettings,
  type TenantDirectory,
  type Workspace,
} from "@resident/core";
import { LRUCache } from "lru-cache";
import type { CredentialCipher } from "./credential-cipher.ts";
import { isWorkspaceId } from "./ids.ts";
import type { SqlExecutor } from "./sql-client.ts";
import { loadToolServers } from "./tool-server-registry.ts";
import { credentialsContext, type WorkspaceRow, workspaceColumns } from "./workspace-row.ts";

export interface CachingDirectoryOptions {
  sql: SqlExecutor;
  cipher: CredentialCipher;
  changeFeed: ChangeFeed;
  /** The fail mode of a workspace that has not chosen one, per platform (the adapters' defaultFailMode). */
  defaultFailModes?: Partial<Record<Platform, FailMode>>;
  /** A safety net behind the change feed, whose delivery is best effort. Default 30 s. */
  ttlMs?: number;
  maxEntries?: number;
}

/**
 * The pipeline's view of workspaces, asked on every webhook: a hit is answered from memory without touching the
 * database. Only found workspaces are cached — a workspace created a second ago must be found — and a change feed
 * notice from any instance drops the entry at once. While the database is away, a workspace seen before is answered
 * from its last reading, however old; one never seen rejects with DatabaseUnavailableError.
 */
export class CachingDirectory implements TenantDirectory, ReceiverCatalog {
  private readonly cache: LRUCache<string, Workspace>;
  /** Bumped by every invalidation; a read that overlapped one is returned but not cached, as it may predate it. */
  private invalidations = 0;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: CachingDirectoryOptions) {
    // An entry past its TTL is kept (not deleted on a stale read): it answers for its workspace while the database
    // is away. The clock is read on every lookup: lru-cache's default caches it for 1 ms behind a timer, which on the
    // webhook's path set a timer and woke the loop up to once a millisecond, for a TTL of seconds.
    this.cache = new LRUCache({
      max: options.maxEntries ?? 10_000,
      ttl: options.ttlMs ?? 30_000,
      ttlResolution: 0,
      noDeleteOnStaleGet: true,
    });
    this.unsubscribe = options.changeFeed.subscribe((workspaceId) => this.forget(workspaceId));
  }

  async workspace(id: string): Promise<Workspace | undefined> {
    if (!isWorkspaceId(id)) return undefined;
    const cached = this.cache.get(id);
    if (cached) return cached;
    const readAt = this.invalidations;
    let found: Workspace | undefined;
    try {
      found = await this.load(id);
    } catch (error) {
      const stale = error instanceof DatabaseUnavailableError && this.cache.get(id, { allowStale: true });
      if (stale) return stale;
      throw error;
    }
    if (found && readAt === this.invalidations) this.cache.set(id, found);
    return found;
  }

  /** Read from the database every time, uncached: the receivers' view of which workspaces want connections. */
  async withCredential(platform: string, credentialField: string): Promise<Workspace[]> {
    const rows = await this.options.sql.query<BudgetedRow>(
      `select ${budgetedColumns} from workspaces
       where platform = $1 and credential_fields ? $2 and disabled_at is null order by id`,
      [platform, credentialField],
    );
    return Promise.all(rows.map((row) => this.toWorkspace(row)));
  }

  forget(workspaceId: string): void {
    this.invalidations++;
    this.cache.delete(workspaceId);
  }

  close(): void {
    this.unsubscribe();
    this.cache.clear();
  }

  private async load(id: string): Promise<Workspace | undefined> {
    // A disabled workspace is as unknown to the pipeline as a deleted one: nothing of it is answered.
    const [row] = await this.options.sql.query<BudgetedRow>(
      `select ${budgetedColumns} from workspaces where id = $1 and disabled_at is null`,
      [id],
    );
    return row && this.toWorkspace(row);
  }

  private async toWorkspace(row: BudgetedRow): Promise<Workspace> {
    return {
      id: row.id,
      tenantId: row.tenant_id,
      platform: row.platform,
      name: row.name,
      credentials: this.options.cipher.open(row.credentials_ciphertext, credentialsContext(row.id)),
      settings: resolveSettings(row.settings, this.options.defaultFailModes?.[row.platform] ?? "closed"),
      identity: row.identity,
      toolServers: await loadToolServers(this.options.sql, this.options.cipher, row.id),
      budgets: { tenant: row.tenant_budget, workspace: row.budget },
    };
  }
}

type BudgetedRow = WorkspaceRow & { budget: Budget; tenant_budget: Budget };
/** A workspace's row with its own budget and its tenant's. */
const budgetedColumns = `${workspaceColumns}, budget, (select t.budget from tenants t where t.id = workspaces.tenant_id) as tenant_budget`;
