import type {
  BotIdentity,
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
  WorkspaceRecord,
} from "@resident/tenants";
import type { PlatformGuide } from "./platform-guide.ts";

/** The admin API's answers, as apps/server/src/plugins/admin-api.ts sends them. */

export type {
  AuditEntry,
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
}

export type Tenant = TenantRecord;

/** The registry's record (credential field names only, never values) and where the platform should deliver. */
export interface Workspace extends WorkspaceRecord {
  webhookPath: string;
  webhookUrl: string;
}

export interface WorkspaceInput {
  platform?: Platform;
  name: string;
  credentials?: Record<string, string | string[]>;
  /** On create, only what is set; on update, null puts a setting back to its default. */
  settings?: Partial<Record<keyof WorkspaceSettingsInput, string | number | null>>;
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

/** `…/workspaces/:id/connections`: the connections the cluster holds open for a workspace (Socket Mode). */
export interface ReceiverConnections {
  receiving: boolean;
  connections: { slot: number; instanceId: string; state: "connecting" | "open"; since: string }[];
}
