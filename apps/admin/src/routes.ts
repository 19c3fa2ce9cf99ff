import type { Context, Page } from "./context.ts";
import { auditPage } from "./views/audit-page.ts";
import { budgetPage } from "./views/budget-page.ts";
import { tenantsPage } from "./views/tenants-page.ts";
import { tokensPage } from "./views/tokens-page.ts";
import { workspaceFormPage } from "./views/workspace-form-page.ts";
import { workspacePage } from "./views/workspace-page.ts";
import { workspacesPage } from "./views/workspaces-page.ts";

type View = (context: Context, ...params: string[]) => Promise<Page>;

const id = "([A-Za-z0-9_-]+)";
const routes: [RegExp, View][] = [
  [/^\/admin\/tenants\/?$/, tenantsPage],
  [new RegExp(`^/admin/tenants/${id}/?$`), workspacesPage],
  [new RegExp(`^/admin/tenants/${id}/audit/?$`), auditPage],
  [new RegExp(`^/admin/tenants/${id}/tokens/?$`), tokensPage],
  [new RegExp(`^/admin/tenants/${id}/budget/?$`), budgetPage],
  [new RegExp(`^/admin/tenants/${id}/workspaces/new/${id}/?$`), (c, t, p) => workspaceFormPage(c, t, { platform: p })],
  [new RegExp(`^/admin/tenants/${id}/workspaces/${id}/edit/?$`), (c, t, w) => workspaceFormPage(c, t, { id: w })],
  [new RegExp(`^/admin/tenants/${id}/workspaces/${id}/?$`), workspacePage],
];

/** The page for a path, or undefined when no page lives there. */
export function route(path: string): ((context: Context) => Promise<Page>) | undefined {
  for (const [pattern, view] of routes) {
    const match = pattern.exec(path);
    if (match) return (context) => view(context, ...match.slice(1));
  }
  return undefined;
}
