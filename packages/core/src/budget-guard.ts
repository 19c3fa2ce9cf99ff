import {
  answerWindowKey,
  type Budget,
  type BudgetLimit,
  type Budgets,
  recentDays,
  tokenUsageKey,
  tokenUsageTtlMs,
  utcDay,
} from "./budget.ts";
import { StoreUnavailableError } from "./errors.ts";
import { warnUnlessAway } from "./outage-log.ts";
import type { RateLimiter, RateWindow } from "./ports/rate-limiter.ts";
import type { Logger, WorkspaceRef } from "./ports/telemetry.ts";
import type { UsageMeter } from "./ports/usage-meter.ts";

export type BudgetScope = "tenant" | "workspace";

export type BudgetVerdict = { within: true } | { within: false; limit: BudgetLimit; scope: BudgetScope };

/** One scope's token use per day, oldest first. */
export interface DailyUsage {
  day: string;
  tokens: number;
}

const minuteMs = 60_000;

/**
 * Holds answers to their tenant's and workspace's budgets before the LLM is called, on counters every instance
 * shares. A day's tokens are known only after each call, so the call that crosses the limit is let through and the
 * ones after it are not. While the shared store is away, answers are let through: a budget is a cost control, and
 * not answering at all would cost more.
 */
export class BudgetGuard {
  constructor(
    private readonly meter: UsageMeter,
    private readonly limiter: RateLimiter,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    /** Where the tokens of answers no token budget holds are counted (a UsageBatch); default the meter itself. */
    private readonly unbudgeted: UsageMeter = meter,
  ) {}

  /** Whether one more answer fits; a fitting answer takes its slot in the per-minute windows. */
  async admit(ws: WorkspaceRef, budgets: Budgets | undefined): Promise<BudgetVerdict> {
    if (!budgets) return { within: true };
    try {
      return (await this.tokensLeft(ws, budgets)) ?? (await this.answerSlot(ws, budgets)) ?? { within: true };
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      this.logger.debug({ err: error.message, workspaceId: ws.workspaceId }, "budget counters unavailable; answering");
      return { within: true };
    }
  }

  /**
   * Counts an LLM call's tokens against the day; best effort, as the stats are. Under a token budget they are written
   * at once, for the next answer anywhere to be held to them; otherwise they may wait for a batch.
   */
  async record(ws: WorkspaceRef, tokens: number, budgets?: Budgets): Promise<void> {
    if (tokens <= 0) return;
    const day = utcDay(this.now());
    const counts = [tokenUsageKey(day, ws.tenantId), tokenUsageKey(day, ws.tenantId, ws.workspaceId)].map((key) => ({
      key,
      by: tokens,
    }));
    const meter = budgets && limitsTokens(budgets) ? this.meter : this.unbudgeted;
    await meter
      .add(counts, tokenUsageTtlMs)
      .catch((err) =>
        warnUnlessAway(this.logger, err, { workspaceId: ws.workspaceId }, "could not count tokens against the budget"),
      );
  }

  /** Token use per UTC day of the last `days` days: the tenant's, or one workspace's. */
  async usage(tenantId: string, workspaceId: string | undefined, days: number): Promise<DailyUsage[]> {
    const dates = recentDays(this.now(), days);
    const tokens = await this.meter.read(dates.map((day) => tokenUsageKey(day, tenantId, workspaceId)));
    return dates.map((day, i) => ({ day, tokens: tokens[i] ?? 0 }));
  }

  private async tokensLeft(ws: WorkspaceRef, { tenant, workspace }: Budgets): Promise<BudgetVerdict | undefined> {
    if (!limitsTokens({ tenant, workspace })) return undefined;
    const day = utcDay(this.now());
    const [tenantUsed = 0, workspaceUsed = 0] = await this.meter.read([
      tokenUsageKey(day, ws.tenantId),
      tokenUsageKey(day, ws.tenantId, ws.workspaceId),
    ]);
    if (spent(tenant, tenantUsed)) return { within: false, limit: "tokensPerDay", scope: "tenant" };
    if (spent(workspace, workspaceUsed)) return { within: false, limit: "tokensPerDay", scope: "workspace" };
    return undefined;
  }

  /** Takes a slot in both windows at once or in neither, so a refused answer costs no one else a slot. */
  private async answerSlot(ws: WorkspaceRef, { tenant, workspace }: Budgets): Promise<BudgetVerdict | undefined> {
    const windows: (RateWindow & { scope: BudgetScope })[] = [];
    if (tenant.answersPerMinute !== undefined) {
      windows.push({
        key: answerWindowKey(ws.tenantId),
        limit: tenant.answersPerMinute,
        windowMs: minuteMs,
        scope: "tenant",
      });
    }
    if (workspace.answersPerMinute !== undefined) {
      windows.push({
        key: answerWindowKey(ws.tenantId, ws.workspaceId),
        limit: workspace.answersPerMinute,
        windowMs: minuteMs,
        scope: "workspace",
      });
    }
    if (windows.length === 0 || (await this.limiter.take(windows)) === 0) return undefined;
    const tightest = windows.reduce((a, b) => (b.limit < a.limit ? b : a));
    return { within: false, limit: "answersPerMinute", scope: tightest.scope };
  }
}

function limitsTokens({ tenant, workspace }: Budgets): boolean {
  return tenant.tokensPerDay !== undefined || workspace.tokensPerDay !== undefined;
}

function spent(budget: Budget, used: number): boolean {
  return budget.tokensPerDay !== undefined && used >= budget.tokensPerDay;
}
