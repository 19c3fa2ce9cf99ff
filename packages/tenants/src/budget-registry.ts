import { type Budget, type BudgetInput, budgetSchema, toBudget } from "@resident/core";
import type { AuditLog } from "./audit-log.ts";
import { changedFields } from "./changed-fields.ts";
import { assertOperator, assertTenantAccess, type Principal } from "./principal.ts";
import type { SqlClient, SqlExecutor } from "./sql-client.ts";
import { parseInput } from "./workspace-input.ts";

export interface BudgetRegistryDeps {
  sql: SqlClient;
  audit: AuditLog;
  /** Told every workspace whose budgets changed (a tenant's budget changes all of its workspaces'). */
  onWorkspaceChange: (workspaceId: string) => Promise<void>;
}

/** A tenant's budget and each of its workspaces' (keyed by workspace id). */
export interface TenantBudgets {
  tenant: Budget;
  workspaces: Record<string, Budget>;
}

/**
 * Budgets as the admin API manages them: a tenant's is the operator's to set (it is what the tenant pays for), a
 * workspace's its tenant admins' (how they share it out). Each change is audited; undefined means no such tenant or
 * workspace.
 */
export class BudgetRegistry {
  constructor(private readonly deps: BudgetRegistryDeps) {}

  async read(by: Principal, tenantId: string): Promise<TenantBudgets | undefined> {
    assertTenantAccess(by, tenantId);
    const [tenant] = await this.deps.sql.query<{ budget: Budget }>("select budget from tenants where id = $1", [
      tenantId,
    ]);
    if (!tenant) return undefined;
    const workspaces = await this.deps.sql.query<{ id: string; budget: Budget }>(
      "select id, budget from workspaces where tenant_id = $1 order by created_at, id",
      [tenantId],
    );
    return { tenant: tenant.budget, workspaces: Object.fromEntries(workspaces.map((w) => [w.id, w.budget])) };
  }

  async setTenantBudget(by: Principal, tenantId: string, input: BudgetInput): Promise<Budget | undefined> {
    assertOperator(by);
    const budget = toBudget(parseInput(budgetSchema, input, "budget"));
    const changed = await this.write(
      by,
      tenantId,
      tenantId,
      "tenant.budget",
      budget,
      (tx) => tx.query<{ budget: Budget }>("select budget from tenants where id = $1 for update", [tenantId]),
      (tx) => tx.query("update tenants set budget = $2::jsonb where id = $1", [tenantId, JSON.stringify(budget)]),
    );
    if (changed === undefined) return undefined;
    if (changed) {
      const workspaces = await this.deps.sql.query<{ id: string }>("select id from workspaces where tenant_id = $1", [
        tenantId,
      ]);
      for (const { id } of workspaces) await this.deps.onWorkspaceChange(id);
    }
    return budget;
  }

  async setWorkspaceBudget(
    by: Principal,
    tenantId: string,
    workspaceId: string,
    input: BudgetInput,
  ): Promise<Budget | undefined> {
    assertTenantAccess(by, tenantId);
    const budget = toBudget(parseInput(budgetSchema, input, "budget"));
    const changed = await this.write(
      by,
      tenantId,
      workspaceId,
      "workspace.budget",
      budget,
      (tx) =>
        tx.query<{ budget: Budget }>("select budget from workspaces where id = $1 and tenant_id = $2 for update", [
          workspaceId,
          tenantId,
        ]),
      (tx) =>
        tx.query("update workspaces set budget = $3::jsonb, updated_at = now() where id = $1 and tenant_id = $2", [
          workspaceId,
          tenantId,
          JSON.stringify(budget),
        ]),
    );
    if (changed === undefined) return undefined;
    if (changed) await this.deps.onWorkspaceChange(workspaceId);
    return budget;
  }

  /** Undefined: no such row; else whether the budget changed. */
  private write(
    by: Principal,
    tenantId: string,
    target: string,
    action: string,
    budget: Budget,
    current: (tx: SqlExecutor) => Promise<{ budget: Budget }[]>,
    update: (tx: SqlExecutor) => Promise<unknown>,
  ): Promise<boolean | undefined> {
    return this.deps.sql.transaction(async (tx) => {
      const [row] = await current(tx);
      if (!row) return undefined;
      const fields = changedFields("budget", row.budget, budget);
      if (fields.length === 0) return false;
      await update(tx);
      await this.deps.audit.record(tx, { tenantId, actor: by, action, target, detail: { fields } });
      return true;
    });
  }
}
