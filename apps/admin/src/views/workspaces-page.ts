import type { PlatformView, TenantStats, Workspace } from "@resident/admin-api";
import { describeProblem } from "../api-errors.ts";
import { activitySummary } from "../components/activity-summary.ts";
import { alertBox } from "../components/alert-box.ts";
import { livePanel } from "../components/live-panel.ts";
import { type Context, type Page, paths, platformOf } from "../context.ts";
import { h } from "../dom.ts";
import { formatCount } from "../format.ts";
import { text } from "../i18n/language.ts";
import { tenantName } from "./tenant-name.ts";

/** A tenant's workspaces with their state and cluster-wide counters, and a way to connect another. */
export async function workspacesPage(context: Context, tenantId: string): Promise<Page> {
  const t = text().workspaces;
  const { api } = context;
  const [name, workspaces] = await Promise.all([tenantName(context, tenantId), api.workspaces(tenantId)]);
  const table = await livePanel(
    () => api.stats(tenantId),
    (stats) => workspaceTable(context, workspaces, stats),
  );
  const problem = alertBox();
  const connect = h(
    "section",
    { class: "card", "aria-labelledby": "connect-title" },
    h("h2", { id: "connect-title" }, t.connectTitle),
    problem.element,
    h(
      "ul",
      { class: "platform-choices" },
      ...context.platforms.flatMap((platform) => [
        platform.installable && h("li", {}, installButton(context, tenantId, platform, problem)),
        h(
          "li",
          {},
          h(
            "a",
            { class: "button", href: paths.newWorkspace(tenantId, platform.platform), "data-link": true },
            t.connect(platform.displayName),
          ),
        ),
      ]),
    ),
  );
  return {
    title: name,
    element: h(
      "section",
      {},
      h("h1", { tabindex: -1 }, name),
      context.me.role === "operator" &&
        h(
          "p",
          {},
          h("a", { href: paths.audit(tenantId), "data-link": true }, t.auditLink),
          " · ",
          h("a", { href: paths.budget(tenantId), "data-link": true }, t.budgetLink),
        ),
      h("h2", {}, t.title),
      table.element,
      connect,
    ),
    dispose: table.dispose,
  };
}

/**
 * "Add to Slack": the operator's own app, installed by this admin. The platform's page decides the workspace; the
 * browser comes back to the new workspace's page. The state of the install is tied to this tab's admin token.
 */
function installButton(
  context: Context,
  tenantId: string,
  platform: PlatformView,
  problem: ReturnType<typeof alertBox>,
): HTMLElement {
  const button = h("button", { type: "button" }, text().workspaces.install(platform.displayName));
  button.addEventListener("click", async () => {
    problem.clear();
    button.disabled = true;
    try {
      const { url } = await context.api.beginInstall(tenantId, platform.platform);
      window.location.assign(url);
    } catch (error) {
      button.disabled = false;
      problem.show(describeProblem(error));
    }
  });
  return button;
}

function workspaceTable(context: Context, workspaces: Workspace[], stats: TenantStats): Node {
  const t = text().workspaces;
  if (workspaces.length === 0) return h("p", {}, t.none);
  const { columns } = t;
  const headings = [
    columns.workspace,
    columns.platform,
    columns.state,
    columns.messages,
    columns.duplicates,
    columns.replies,
    columns.failures,
  ];
  return h(
    "table",
    { class: "workspaces" },
    h("caption", { class: "visually-hidden" }, t.caption),
    h("thead", {}, h("tr", {}, ...headings.map((label) => h("th", { scope: "col" }, label)))),
    h(
      "tbody",
      {},
      ...workspaces.map((workspace) => {
        const counts = stats.workspaces[workspace.id];
        const cell = (n = 0) => h("td", { class: "number" }, formatCount(n));
        return h(
          "tr",
          { "data-workspace": workspace.id },
          h(
            "th",
            { scope: "row" },
            h("a", { href: paths.workspace(workspace.tenantId, workspace.id), "data-link": true }, workspace.name),
          ),
          h("td", {}, platformOf(context, workspace.platform)?.displayName ?? workspace.platform),
          h(
            "td",
            {},
            workspace.disabled
              ? h("strong", { class: "disabled" }, t.disabled(workspace.disabled.reason))
              : activitySummary(stats.activity[workspace.id]),
          ),
          cell(counts?.events),
          cell(counts && counts.duplicateEvents + counts.duplicateReplies),
          cell(counts?.replies),
          cell(counts?.failures),
        );
      }),
    ),
  );
}
