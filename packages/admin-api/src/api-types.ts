import type {
  BotIdentity,
  DailyFeedback,
  FailMode,
  FailureStage,
  Platform,
  StatCounts,
  StatRange,
  WorkspaceSettingsInput,
} from "@resident/core";
import type {
  AuditEntry,
  IssuedToken,
  TenantPatch,
  TenantRecord,
  TokenInput,
  TokenRecord,
  ToolServerRecord,
  WorkspaceRecord,
} from "@resident/tenants";
import type { PlatformGuide } from "./platform-guide.ts";

/** The admin API's answers, as apps/server/src/plugins/admin-api.ts sends them. */

export type {
  AuditEntry,
  DailyFeedback,
  FailMode,
  IssuedToken,
  Platform,
  StatCounts,
  StatRange,
  TenantPatch,
  TokenInput,
  TokenRecord,
};

export type Me =
  | { role: "operator" }
  | { role: "tenant"; tenantId: string; tenantName: string; tokenId: string; mayIssueTokens: boolean };

export interface PlatformView extends PlatformGuide {
  platform: Platform;
  defaultFailMode: FailMode;
  /** The operator configured an app of this platform that tenants install themselves ("Add to Slack"). */
  installable: boolean;
}

/** Where the browser goes to install the operator's app: the platform's authorize page. */
export interface InstallStart {
  url: string;
}

export type Tenant = TenantRecord;

/** The registry's record (credential field names only, never values) and where the platform should deliver. */
export interface Workspace extends WorkspaceRecord {
  webhookPath: string;
  webhookUrl: string;
  /** Where the platform sends clicks on our answers' buttons, where that is not the webhook (Slack's Interactivity). */
  interactionPath?: string;
  interactionUrl?: string;
}

export interface WorkspaceInput {
  platform?: Platform;
  name: string;
  credentials?: Record<string, string | string[]>;
  /** On create, only what is set; on update, null puts a setting back to its default. */
  settings?: { [K in keyof WorkspaceSettingsInput]?: WorkspaceSettingsInput[K] | null };
}

export interface Activity {
  lastEventAt?: string;
  lastReplyAt?: string;
  lastError?: { at: string; stage: FailureStage; message: string };
}

export interface TenantStats {
  tenantId: string;
  totals: StatCounts;
  workspaces: Record<string, StatCounts>;
  activity: Record<string, Activity>;
}

export interface Budget {
  tokensPerDay?: number;
  answersPerMinute?: number;
}

export interface DailyUsage {
  day: string;
  tokens: number;
}

/** A tenant's budget and its workspaces', with their token use per UTC day over the last week, oldest first. */
export interface TenantBudgets {
  tenantId: string;
  tenant: { budget: Budget; usage: DailyUsage[] };
  workspaces: { workspaceId: string; budget: Budget; usage: DailyUsage[] }[];
}

/**
 * `…/workspaces/:id/feedback?days=`: the votes on the workspace's answers per UTC day, oldest first, quiet days
 * included — each person's latest vote on each answer, counted on the day it was cast.
 */
export interface WorkspaceFeedback {
  workspaceId: string;
  days: DailyFeedback[];
}

export interface Series {
  range: StatRange;
  bucketSeconds: number;
  points: { at: string; counts: StatCounts }[];
}

/** Why a platform would not take credentials: `reason` for the console's words, `detail` in the platform's. */
export interface ConnectFailure {
  error: string;
  reason: "refused" | "unreachable";
  detail: string;
}

export type ConnectionTest = { ok: true; identity: BotIdentity } | ({ ok: false } & ConnectFailure);

/** An MCP server attached to a workspace: its auth header's name, never its value. */
export type ToolServer = ToolServerRecord;

export interface ToolServerInput {
  name: string;
  url: string;
  authHeader?: { name: string; value: string };
}

export interface ToolInfo {
  name: string;
  description?: string;
}

/** A server's tools as it lists them now, or why it could not. */
export type ToolList = { ok: true; tools: ToolInfo[] } | { ok: false; error: string };

/**
 * `…/workspaces/:id/connections`: the connections the cluster holds open for a workspace (Socket Mode). An
 * installation of the operator's distributed app is answered with the app's connections, which every installation
 * shares (`heldFor: "app"`).
 */
export interface ReceiverConnections {
  receiving: boolean;
  heldFor: "workspace" | "app";
  connections: { slot: number; instanceId: string; state: "connecting" | "open"; since: string }[];
}
