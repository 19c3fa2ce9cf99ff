import { ApiError } from "../api.ts";
import type { ConnectionTest, PlatformView, StatRange, Workspace } from "../api-types.ts";
import { activitySummary } from "../components/activity-summary.ts";
import { copyField } from "../components/copy-field.ts";
import { livePanel } from "../components/live-panel.ts";
import { seriesChart } from "../components/series-chart.ts";
import { statCounters } from "../components/stat-counters.ts";
import { type Context, type Page, paths, platformOf } from "../context.ts";
import { fill, h } from "../dom.ts";
import { formatSeconds } from "../format.ts";
import { messagePage } from "./message-page.ts";

const noCounts = { events: 0, duplicateEvents: 0, replies: 0, duplicateReplies: 0, failures: 0, llmTokens: 0 };
const defaultTtlSeconds = 86_400;

/** One workspace: where the platform must send, how to set it up, whether it connects, and what it has done. */
export async function workspacePage(context: Context, tenantId: string, workspaceId: string): Promise<Page> {
  const { api } = context;
  const workspace = await api.workspace(tenantId, workspaceId);
  const platform = platformOf(context, workspace.platform);
  if (!platform) return messagePage(workspace.name, `${workspace.platform} is not enabled on this server.`);

  const stats = await livePanel(
    () => api.stats(tenantId),
    (all) =>
      h("div", {}, statCounters(all.workspaces[workspaceId] ?? noCounts), activitySummary(all.activity[workspaceId])),
  );
  let range: StatRange = "hour";
  const chart = await livePanel(() => api.series(tenantId, workspaceId, range), seriesChart);
  const rangeChoice = (value: StatRange, label: string) =>
    h(
      "label",
      { class: "choice" },
      h("input", {
        type: "radio",
        name: "range",
        value,
        checked: value === range,
        onchange: () => {
          range = value;
          void chart.refresh();
        },
      }),
      label,
    );

  return {
    title: workspace.name,
    element: h(
      "section",
      { class: "workspace" },
      h("p", { class: "breadcrumb" }, h("a", { href: paths.tenant(tenantId), "data-link": true }, "Workspaces")),
      h("h1", { tabindex: -1 }, workspace.name),
      h("p", { class: "platform-badge" }, platform.displayName),
      h(
        "section",
        { class: "card", "aria-labelledby": "stats-title" },
        h("h2", { id: "stats-title" }, "Activity across all instances"),
        stats.element,
        h(
          "fieldset",
          { class: "range" },
          h("legend", {}, "Chart period"),
          rangeChoice("hour", "Last hour"),
          rangeChoice("day", "Last day"),
        ),
        chart.element,
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "setup-title" },
        h("h2", { id: "setup-title" }, `Connect it in ${platform.displayName}`),
        copyField("Webhook URL", workspace.webhookUrl, {
          name: "webhook-url",
          help: `Paste this into ${platform.displayName} as the steps below say.`,
        }),
        h("ol", { class: "steps" }, ...platform.setupSteps.map((step) => h("li", {}, step))),
      ),
      connectionSection(context, workspace),
      settingsSection(platform, workspace),
      actions(context, workspace),
    ),
    dispose() {
      stats.dispose();
      chart.dispose();
    },
  };
}

function connectionSection(context: Context, workspace: Workspace): HTMLElement {
  const result = h("div", { class: "test-result", role: "status" });
  const button = h("button", { type: "button" }, "Test connection");
  button.addEventListener("click", async () => {
    button.disabled = true;
    fill(result, h("p", {}, "Testing…"));
    try {
      fill(result, testResult(await context.api.testConnection(workspace.tenantId, workspace.id)));
    } catch (error) {
      fill(result, h("p", { class: "error-text" }, error instanceof ApiError ? error.message : String(error)));
    } finally {
      button.disabled = false;
    }
  });
  return h(
    "section",
    { class: "card", "aria-labelledby": "connection-title" },
    h("h2", { id: "connection-title" }, "Connection"),
    h("p", {}, "The bot as the platform described it when the workspace was saved:"),
    identityList(workspace.identity),
    button,
    result,
  );
}

function testResult(test: ConnectionTest): HTMLElement {
  if (!test.ok) return h("p", { class: "error-text" }, h("strong", {}, "Connection failed. "), test.error);
  return h("div", { class: "ok-text" }, h("p", {}, h("strong", {}, "Connected.")), identityList(test.identity));
}

function identityList(identity: Record<string, string>): HTMLElement {
  return h(
    "dl",
    { class: "identity" },
    ...Object.entries(identity).flatMap(([key, value]) => [h("dt", {}, key), h("dd", {}, h("code", {}, value))]),
  );
}

function settingsSection(platform: PlatformView, workspace: Workspace): HTMLElement {
  const { settings } = workspace;
  const failMode = settings.failMode ?? platform.defaultFailMode;
  const row = (term: string, value: Node | string) => [h("dt", {}, term), h("dd", {}, value)];
  return h(
    "section",
    { class: "card", "aria-labelledby": "settings-title" },
    h("h2", { id: "settings-title" }, "Settings"),
    h(
      "dl",
      { class: "settings" },
      ...platform.credentialFields.flatMap((field) =>
        row(
          field.label,
          workspace.credentialFields.includes(field.name)
            ? h("span", { class: "set" }, "set")
            : h("span", { class: "muted" }, "not set"),
        ),
      ),
      ...row("System prompt", settings.systemPrompt ?? h("span", { class: "muted" }, "resident's default")),
      ...row("Model", settings.model ?? h("span", { class: "muted" }, "resident's default")),
      ...row(
        "If Redis and PostgreSQL are both down",
        h(
          "div",
          {},
          h("strong", {}, failMode === "open" ? "Fail open" : "Fail closed"),
          h("p", {}, platform.failModeConsequences[failMode]),
        ),
      ),
      ...row("Deliveries remembered for", formatSeconds(settings.eventTtlSeconds ?? defaultTtlSeconds)),
      ...row("Replies remembered for", formatSeconds(settings.replyTtlSeconds ?? defaultTtlSeconds)),
    ),
  );
}

function actions(context: Context, workspace: Workspace): HTMLElement {
  const confirm = h("div", { class: "confirm", hidden: true });
  const ask = h("button", { type: "button", class: "danger" }, "Delete workspace");
  ask.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "danger" }, `Delete ${workspace.name}`);
    const no = h("button", { type: "button", class: "secondary" }, "Cancel");
    yes.addEventListener("click", async () => {
      await context.api.deleteWorkspace(workspace.tenantId, workspace.id);
      context.navigate(paths.tenant(workspace.tenantId));
    });
    no.addEventListener("click", () => {
      confirm.hidden = true;
      ask.focus();
    });
    fill(
      confirm,
      h(
        "p",
        { role: "alert" },
        `Delete ${workspace.name}? Its webhook stops working at once and its credentials are erased.`,
      ),
      yes,
      no,
    );
    confirm.hidden = false;
    no.focus();
  });
  return h(
    "div",
    { class: "actions" },
    h(
      "a",
      { class: "button", href: paths.editWorkspace(workspace.tenantId, workspace.id), "data-link": true },
      "Edit workspace",
    ),
    ask,
    confirm,
  );
}
