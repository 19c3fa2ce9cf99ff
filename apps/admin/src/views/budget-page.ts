import type { Budget, DailyUsage, TenantBudgets, TenantStats, Workspace } from "@resident/admin-api";
import { alertBox } from "../components/alert-box.ts";
import { cardForm } from "../components/card-form.ts";
import { livePanel } from "../components/live-panel.ts";
import { type Context, type Page, paths } from "../context.ts";
import { h, uniqueId } from "../dom.ts";
import { formatCount, formatDay } from "../format.ts";
import { intlLocale, text } from "../i18n/language.ts";
import { tenantName } from "./tenant-name.ts";

/**
 * A tenant's budgets and what its answers spent: today's tokens against the budget, the last week day by day, and
 * the over-budget replies; the forms that set the budgets (the tenant's for the operator only).
 */
export async function budgetPage(context: Context, tenantId: string): Promise<Page> {
  const t = text().budget;
  const { api } = context;
  const [name, workspaces, budgets] = await Promise.all([
    tenantName(context, tenantId),
    api.workspaces(tenantId),
    api.budgets(tenantId),
  ]);
  const usage = await livePanel(
    () => Promise.all([api.budgets(tenantId), api.stats(tenantId)]),
    ([current, stats]) => usageView(name, workspaces, current, stats),
  );
  const problem = alertBox();
  const saved = h("p", { role: "status", class: "ok-text" });
  const save = async (write: () => Promise<unknown>) => {
    saved.textContent = "";
    await write();
    saved.textContent = t.saved;
    await usage.refresh();
  };
  const forms: HTMLElement[] =
    context.me.role === "operator"
      ? [budgetForm(name, budgets.tenant.budget, problem, (b) => save(() => api.setTenantBudget(tenantId, b)))]
      : [h("p", {}, t.operatorOnly)];
  for (const workspace of workspaces) {
    const current = budgets.workspaces.find((w) => w.workspaceId === workspace.id)?.budget ?? {};
    forms.push(
      budgetForm(workspace.name, current, problem, (b) =>
        save(() => api.setWorkspaceBudget(tenantId, workspace.id, b)),
      ),
    );
  }
  const title = t.title(name);
  return {
    title,
    element: h(
      "section",
      { class: "budget" },
      h("h1", { tabindex: -1 }, title),
      h("p", {}, t.intro),
      usage.element,
      problem.element,
      saved,
      ...forms,
    ),
    dispose: usage.dispose,
  };
}

function usageView(tenant: string, workspaces: Workspace[], budgets: TenantBudgets, stats: TenantStats): Node {
  const t = text().budget;
  const byId = new Map(budgets.workspaces.map((w) => [w.workspaceId, w]));
  return h(
    "div",
    {},
    scopeCard(t.tenantTitle, tenant, budgets.tenant.budget, budgets.tenant.usage, stats.totals.overBudget, "tenant"),
    ...workspaces.map((workspace) => {
      const entry = byId.get(workspace.id);
      return scopeCard(
        h("a", { href: paths.workspace(workspace.tenantId, workspace.id), "data-link": true }, workspace.name),
        workspace.name,
        entry?.budget ?? {},
        entry?.usage ?? [],
        stats.workspaces[workspace.id]?.overBudget ?? 0,
        workspace.id,
      );
    }),
  );
}

/** One scope's budget, today's use against it, the week day by day, and how many messages met the budget. */
function scopeCard(
  heading: Node | string,
  scope: string,
  budget: Budget,
  usage: DailyUsage[],
  overBudget: number,
  key: string,
): HTMLElement {
  const t = text().budget;
  const titleId = uniqueId("budget-title");
  const limit = budget.tokensPerDay;
  const today = usage.at(-1)?.tokens ?? 0;
  const limitText = (value?: number) => (value === undefined ? t.noLimit : formatCount(value));
  const row = (term: string, value: Node | string, stat?: string) => [
    h("dt", {}, term),
    h("dd", stat ? { "data-budget": stat } : {}, value),
  ];
  return h(
    "section",
    { class: "card", "aria-labelledby": titleId, "data-scope": key },
    h("h2", { id: titleId }, heading),
    h(
      "dl",
      { class: "settings" },
      ...row(t.tokensPerDay, limitText(limit)),
      ...row(t.answersPerMinute, limitText(budget.answersPerMinute)),
      ...row(
        t.today,
        h(
          "span",
          {},
          limit === undefined ? t.used(formatCount(today)) : t.usedOf(formatCount(today), formatCount(limit)),
          limit !== undefined && share(today, limit, `${t.today}: ${scope}`),
        ),
        "today",
      ),
      ...row(t.overBudget, formatCount(overBudget), "overBudget"),
    ),
    h(
      "table",
      { class: "usage" },
      h("caption", {}, t.usageCaption(scope)),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ...[t.columns.day, t.columns.tokens, t.columns.share].map((label) => h("th", { scope: "col" }, label)),
        ),
      ),
      h(
        "tbody",
        {},
        ...usage.map((day) =>
          h(
            "tr",
            { "data-day": day.day },
            h("th", { scope: "row" }, formatDay(day.day)),
            h("td", { class: "number" }, formatCount(day.tokens)),
            h("td", {}, limit === undefined ? "—" : share(day.tokens, limit, `${formatDay(day.day)}: ${scope}`)),
          ),
        ),
      ),
    ),
  );
}

/** Use against a limit as a meter, named for screen readers, with the share in words beside it. */
function share(used: number, limit: number, label: string): HTMLElement {
  const percent = new Intl.NumberFormat(intlLocale(), { style: "percent", maximumFractionDigits: 0 });
  return h(
    "span",
    { class: "share" },
    h("meter", {
      min: 0,
      max: limit,
      value: Math.min(used, limit),
      optimum: 0,
      high: limit * 0.8,
      "aria-label": label,
    }),
    ` ${percent.format(used / limit)}`,
  );
}

/** The two limits of one scope; an empty field is no limit. */
function budgetForm(
  scope: string,
  budget: Budget,
  problem: ReturnType<typeof alertBox>,
  submit: (budget: Budget) => Promise<void>,
): HTMLFormElement {
  const t = text().budget;
  const field = (label: string, value: number | undefined) => {
    const id = uniqueId("budget");
    const input = h("input", {
      id,
      type: "number",
      min: 1,
      step: 1,
      inputmode: "numeric",
      value: value === undefined ? "" : String(value),
      "aria-describedby": `${id}-help`,
    });
    return {
      input,
      element: h(
        "div",
        { class: "field" },
        h("label", { for: id }, label),
        input,
        h("p", { id: `${id}-help`, class: "help" }, t.limitHelp),
      ),
    };
  };
  const tokens = field(t.tokensPerDay, budget.tokensPerDay);
  const answers = field(t.answersPerMinute, budget.answersPerMinute);
  const read = (input: HTMLInputElement) => (input.value.trim() === "" ? undefined : Number(input.value));
  return cardForm(
    problem,
    () => submit({ tokensPerDay: read(tokens.input), answersPerMinute: read(answers.input) }),
    h("h2", {}, scope),
    tokens.element,
    answers.element,
    h("div", { class: "actions" }, h("button", { type: "submit", "aria-label": t.saveFor(scope) }, t.save)),
  );
}
