import type { FailureStage } from "./telemetry.ts";

export const statCounters = [
  "events",
  "duplicateEvents",
  "replies",
  "duplicateReplies",
  "failures",
  "llmTokens",
  "toolCalls",
  /** Messages answered with the over-budget reply. */
  "overBudget",
] as const;
export type StatCounter = (typeof statCounters)[number];
export type StatCounts = Record<StatCounter, number>;

/** The pipeline's latest failure in a workspace: never a secret (see failureSummary). */
export interface FailureRecord {
  /** Epoch milliseconds. */
  at: number;
  stage: FailureStage;
  message: string;
}

/** When a workspace last received a message, last answered one, and last failed; epoch milliseconds. */
export interface WorkspaceActivity {
  lastEventAt?: number;
  lastReplyAt?: number;
  lastError?: FailureRecord;
}

export interface StatIncrement {
  tenantId: string;
  workspaceId: string;
  counts: Partial<StatCounts>;
  /** Newer moments replace older ones, never the reverse: instances flush in any order. */
  activity?: WorkspaceActivity;
  /** When the counts were taken, epoch milliseconds; the series bucket them by it. Default: now. */
  at?: number;
}

export const statRanges = ["hour", "day"] as const;
export type StatRange = (typeof statRanges)[number];

/** One bucket of a series: the counts taken from `at` (epoch milliseconds) for the range's bucket width. */
export interface StatPoint {
  at: number;
  counts: StatCounts;
}

/** Cluster-wide counters per workspace, so any instance reports the same numbers. */
export interface StatsStore {
  add(increments: StatIncrement[]): Promise<void>;
  /** Totals for every workspace of the tenant that has counted something, keyed by workspace id. */
  read(tenantId: string): Promise<Record<string, StatCounts>>;
  /** The latest activity of every workspace `read` lists (`{}` where none is known), keyed by workspace id. */
  activity(tenantId: string): Promise<Record<string, WorkspaceActivity>>;
  /** The workspace's counts per bucket over the range, oldest first, quiet buckets included (store's seriesBuckets). */
  series(tenantId: string, workspaceId: string, range: StatRange): Promise<StatPoint[]>;
}

export function emptyCounts(): StatCounts {
  return Object.fromEntries(statCounters.map((c) => [c, 0])) as StatCounts;
}
