import { z } from "zod";

/** What a tenant or one of its workspaces may spend. An absent limit is no limit. */
export interface Budget {
  /** LLM tokens (input, output, cache reads and writes) per UTC day. */
  tokensPerDay?: number;
  /** Answers written by the LLM per minute (a sliding window). */
  answersPerMinute?: number;
}

/** The budgets one workspace's answers are held to: its tenant's and its own, both at once. */
export interface Budgets {
  tenant: Budget;
  workspace: Budget;
}

export const budgetLimits = ["tokensPerDay", "answersPerMinute"] as const;
export type BudgetLimit = (typeof budgetLimits)[number];

/** A budget as an admin sets it (PUT): the whole budget, an absent or null limit meaning none. */
export const budgetSchema = z
  .object({
    tokensPerDay: z.number().int().min(1).max(1_000_000_000_000).nullable().optional(),
    answersPerMinute: z.number().int().min(1).max(100_000).nullable().optional(),
  })
  .strict();

export type BudgetInput = z.input<typeof budgetSchema>;

/** The limits that are set, nulls dropped. */
export function toBudget(input: BudgetInput): Budget {
  const budget: Budget = {};
  for (const limit of budgetLimits) {
    const value = input[limit];
    if (typeof value === "number") budget[limit] = value;
  }
  return budget;
}

/**
 * The one short reply a message over budget gets instead of an answer, in English and Japanese: the service does
 * not know the asker's language without the LLM it is not calling.
 */
export const budgetReplies: Record<BudgetLimit, string> = {
  tokensPerDay:
    "I can't answer right now: today's AI usage limit has been reached. Please try again tomorrow, or ask an administrator.\n" +
    "本日のAI利用上限に達したため、お答えできません。明日もう一度お試しいただくか、管理者にお問い合わせください。",
  answersPerMinute:
    "I'm getting too many questions at once. Please ask again in a minute.\n" +
    "ただいま質問が集中しています。1分ほど置いてから、もう一度お試しください。",
};

const dayMs = 86_400_000;

/** The UTC day of a moment, as `YYYY-MM-DD`. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The last `days` UTC days up to the one holding `now`, oldest first. */
export function recentDays(now: number, days: number): string[] {
  return Array.from({ length: days }, (_, i) => utcDay(now - (days - 1 - i) * dayMs));
}

/**
 * The counter of a tenant's (or, given a workspace, that workspace's) LLM tokens on one day. Every counter of a
 * tenant shares the hash tag `{tenantId}`, so one tenant's counters sit in one Redis Cluster slot.
 */
export function tokenUsageKey(day: string, tenantId: string, workspaceId?: string): string {
  return `usage:{${tenantId}}:${workspaceId ?? "tenant"}:tokens:${day}`;
}

/** The rate window of a tenant's (or workspace's) answers per minute. */
export function answerWindowKey(tenantId: string, workspaceId?: string): string {
  return `answers:{${tenantId}}:${workspaceId ?? "tenant"}`;
}

/** How long a day's counter is kept: the console charts the last week. */
export const tokenUsageTtlMs = 8 * dayMs;
