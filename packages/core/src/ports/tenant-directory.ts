import type { Budgets } from "../budget.ts";
import type { Platform } from "../chat-event.ts";
import type { WorkspaceSettings } from "../settings.ts";

/** What a platform told us about our bot when the workspace was connected (the adapter's `connect`). */
export type BotIdentity = Record<string, string>;

export interface Workspace<C = unknown> {
  id: string;
  tenantId: string;
  platform: Platform;
  name: string;
  /** Decrypted; never logged, never returned by the admin API. */
  credentials: C;
  settings: WorkspaceSettings;
  identity: BotIdentity;
  /** Its tenant's budget and its own; absent: no limit. */
  budgets?: Budgets;
  /** The MCP servers attached to the workspace, their auth header decrypted (never logged, never returned). */
  toolServers?: readonly ToolServer[];
}

/** An MCP server reached over Streamable HTTP. `name` prefixes its tools' names; `updatedAt` versions its config. */
export interface ToolServer {
  id: string;
  name: string;
  url: string;
  authHeader?: { name: string; value: string };
  updatedAt: string;
}

/** Finds workspaces for the pipeline. "Unknown" is never cached: a workspace created a second ago must be found. */
export interface TenantDirectory {
  workspace(id: string): Promise<Workspace | undefined>;
}
