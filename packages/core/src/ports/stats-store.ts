export const statCounters = [
  "events",
  "duplicateEvents",
  "replies",
  "duplicateReplies",
  "failures",
  "llmTokens",
] as const;
export type StatCounter = (typeof statCounters)[number];
export type StatCounts = Record<StatCounter, number>;

export interface StatIncrement {
  tenantId: string;
  workspaceId: string;
  counts: Partial<StatCounts>;
}

/** Cluster-wide counters per workspace, so any instance reports the same numbers. */
export interface StatsStore {
  add(increments: StatIncrement[]): Promise<void>;
  /** Totals for every workspace of the tenant that has counted something, keyed by workspace id. */
  read(tenantId: string): Promise<Record<string, StatCounts>>;
}

export function emptyCounts(): StatCounts {
  return Object.fromEntries(statCounters.map((c) => [c, 0])) as StatCounts;
}
