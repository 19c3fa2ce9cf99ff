import type {
  BotIdentity,
  FailMode,
  FailureStage,
  Platform,
  PlatformGuide,
  StatCounts,
  StatRange,
  WorkspaceSettingsInput,
} from "@resident/core";

/** The admin API's answers, as apps/server/src/plugins/admin-api.ts sends them. */

export type { FailMode, Platform, StatCounts, StatRange };

export type Me = { role: "operator" } | { role: "tenant"; tenantId: string; tenantName: string };

export interface PlatformView extends PlatformGuide {
  platform: Platform;
  defaultFailMode: FailMode;
}

export interface Tenant {
  id: string;
  name: string;
  createdAt: string;
}

export interface IssuedToken {
  token: string;
  tokenId: string;
  createdAt: string;
}

export interface Workspace {
  id: string;
  tenantId: string;
  platform: Platform;
  name: string;
  settings: WorkspaceSettingsInput;
  identity: BotIdentity;
  /** The names of the credential fields that are set; their values never leave the server. */
  credentialFields: string[];
  webhookPath: string;
  webhookUrl: string;
  createdAt: string;
  updatedAt: string;
}

export interface WorkspaceInput {
  platform?: Platform;
  name: string;
  credentials?: Record<string, string | string[]>;
  /** On create, only what is set; on update, null puts a setting back to its default. */
  settings: Partial<Record<keyof WorkspaceSettingsInput, string | number | null>>;
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

export type ConnectionTest = { ok: true; identity: BotIdentity } | { ok: false; error: string };

export interface AuditEntry {
  id: string;
  tenantId: string | null;
  actor: string;
  action: string;
  target: string;
  detail: { fields?: string[]; platform?: string };
  at: string;
}
