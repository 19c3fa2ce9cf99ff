import type { ConnectionTest, PlatformView, StatRange, Workspace } from "@resident/admin-api";
import { connectProblem, describeProblem } from "../api-errors.ts";
import { activitySummary } from "../components/activity-summary.ts";
import { copyField } from "../components/copy-field.ts";
import { feedbackTable } from "../components/feedback-table.ts";
import { livePanel } from "../components/live-panel.ts";
import { receiverConnections } from "../components/receiver-connections.ts";
import { seriesChart } from "../components/series-chart.ts";
import { statCounters } from "../components/stat-counters.ts";
import { type Context, type Page, paths, platformOf } from "../context.ts";
import { fill, h } from "../dom.ts";
import { formatSeconds } from "../format.ts";
import { text, translated } from "../i18n/language.ts";
import { messagePage } from "./message-page.ts";
import { toolServersSection } from "./tool-servers-section.ts";

const noCounts = {
  events: 0,
  duplicateEvents: 0,
  replies: 0,
  duplicateReplies: 0,
  failures: 0,
  llmTokens: 0,
  toolCalls: 0,
  overBudget: 0,
};
const defaultTtlSeconds = 86_400;

/** One workspace: where the platform must send, how to set it up, whether it connects, and what it has done. */
export async function workspacePage(context: Context, tenantId: string, workspaceId: string): Promise<Page> {
  const t = text().workspace;
  const { api } = context;
  const workspace = await api.workspace(tenantId, workspaceId);
  const platform = platformOf(context, workspace.platform);
  if (!platform) return messagePage(workspace.name, text().errors.platformOfWorkspaceNotEnabled(workspace.platform));

  const stats = await livePanel(
    () => api.stats(tenantId),
    (all) =>
      h("div", {}, statCounters(all.workspaces[workspaceId] ?? noCounts), activitySummary(all.activity[workspaceId])),
  );
  const connections = await api.connections(tenantId, workspaceId);
  const receiver = connections.receiving
    ? await livePanel(() => api.connections(tenantId, workspaceId), receiverConnections)
    : undefined;
  let range: StatRange = "hour";
  const chart = await livePanel(() => api.series(tenantId, workspaceId, range), seriesChart);
  const feedback = await livePanel(() => api.feedback(tenantId, workspaceId), feedbackTable);
  const tools = await toolServersSection(context, workspace);
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
      h("p", { class: "breadcrumb" }, h("a", { href: paths.tenant(tenantId), "data-link": true }, t.breadcrumb)),
      h("h1", { tabindex: -1 }, workspace.name),
      h("p", { class: "platform-badge" }, platform.displayName),
      workspace.disabled && h("p", { class: "alert" }, text().workspaces.disabled(workspace.disabled.reason)),
      h(
        "section",
        { class: "card", "aria-labelledby": "stats-title" },
        h("h2", { id: "stats-title" }, t.activityTitle),
        stats.element,
        h(
          "fieldset",
          { class: "range" },
          h("legend", {}, t.chartPeriod),
          rangeChoice("hour", t.lastHour),
          rangeChoice("day", t.lastDay),
        ),
        chart.element,
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "feedback-title" },
        h("h2", { id: "feedback-title" }, text().feedback.title),
        h("p", {}, text().feedback.intro),
        feedback.element,
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "setup-title" },
        h("h2", { id: "setup-title" }, t.setupTitle(platform.displayName)),
        ...(workspace.installed
          ? [h("p", {}, t.installedHelp(platform.displayName))]
          : [
              copyField(t.webhookUrl, workspace.webhookUrl, {
                name: "webhook-url",
                help: t.webhookHelp(platform.displayName),
              }),
              h("ol", { class: "steps" }, ...platform.setupSteps.map((step) => h("li", {}, translated(step)))),
            ]),
        workspace.interactionUrl &&
          copyField(t.interactionUrl, workspace.interactionUrl, {
            name: "interaction-url",
            help: t.interactionHelp(platform.displayName),
          }),
      ),
      receiver &&
        h(
          "section",
          { class: "card", "aria-labelledby": "receiver-title" },
          h("h2", { id: "receiver-title" }, text().connections.title),
          h("p", {}, connections.heldFor === "app" ? text().connections.appIntro : text().connections.intro),
          receiver.element,
        ),
      connectionSection(context, platform, workspace),
      settingsSection(platform, workspace),
      tools,
      actions(context, workspace),
    ),
    dispose() {
      stats.dispose();
      chart.dispose();
      feedback.dispose();
      receiver?.dispose();
    },
  };
}

function connectionSection(context: Context, platform: PlatformView, workspace: Workspace): HTMLElement {
  const t = text().workspace;
  const result = h("div", { class: "test-result", role: "status" });
  const button = h("button", { type: "button" }, t.testConnection);
  button.addEventListener("click", async () => {
    button.disabled = true;
    fill(result, h("p", {}, t.testing));
    try {
      fill(result, testResult(platform, await context.api.testConnection(workspace.tenantId, workspace.id)));
    } catch (error) {
      fill(result, h("p", { class: "error-text" }, describeProblem(error, platform).message));
    } finally {
      button.disabled = false;
    }
  });
  return h(
    "section",
    { class: "card", "aria-labelledby": "connection-title" },
    h("h2", { id: "connection-title" }, t.connectionTitle),
    h("p", {}, t.connectionIntro),
    identityList(platform, workspace.identity),
    button,
    result,
  );
}

function testResult(platform: PlatformView, test: ConnectionTest): HTMLElement {
  const t = text().workspace;
  if (!test.ok) {
    const { message, details } = connectProblem(test, platform);
    return h("div", { class: "error-text" }, h("p", {}, h("strong", {}, t.connectionFailed), " ", message), ...details);
  }
  return h(
    "div",
    { class: "ok-text" },
    h("p", {}, h("strong", {}, t.connected)),
    identityList(platform, test.identity),
  );
}

/** The bot's identity, each part named by the platform's guide (its key, should the guide not know it). */
function identityList(platform: PlatformView, identity: Record<string, string>): HTMLElement {
  const name = (key: string) => {
    const label = platform.identityLabels[key];
    return label ? translated(label) : h("code", {}, key);
  };
  return h(
    "dl",
    { class: "identity" },
    ...Object.entries(identity).flatMap(([key, value]) => [h("dt", {}, name(key)), h("dd", {}, h("code", {}, value))]),
  );
}

function settingsSection(platform: PlatformView, workspace: Workspace): HTMLElement {
  const t = text().workspace;
  const { failMode: failModeNames } = text().form;
  const { settings } = workspace;
  const failMode = settings.failMode ?? platform.defaultFailMode;
  const row = (term: string, value: Node | string) => [h("dt", {}, term), h("dd", {}, value)];
  return h(
    "section",
    { class: "card", "aria-labelledby": "settings-title" },
    h("h2", { id: "settings-title" }, t.settingsTitle),
    h(
      "dl",
      { class: "settings" },
      ...platform.credentialFields.flatMap((field) =>
        row(
          translated(field.label),
          workspace.credentialFields.includes(field.name)
            ? h("span", { class: "set" }, t.set)
            : h("span", { class: "muted" }, t.notSet),
        ),
      ),
      ...row(t.systemPrompt, settings.systemPrompt ?? h("span", { class: "muted" }, t.residentDefault)),
      ...row(t.model, settings.model ?? h("span", { class: "muted" }, t.residentDefault)),
      ...row(
        t.failMode,
        h(
          "div",
          {},
          h("strong", {}, failModeNames[failMode]),
          h("p", {}, translated(platform.failModeConsequences[failMode])),
        ),
      ),
      ...row(t.eventTtl, formatSeconds(settings.eventTtlSeconds ?? defaultTtlSeconds)),
      ...row(t.replyTtl, formatSeconds(settings.replyTtlSeconds ?? defaultTtlSeconds)),
      ...row(t.streaming, settings.streaming === false ? t.streamingOff : t.streamingOn),
      ...row(
        t.suggestedPrompts,
        settings.suggestedPrompts?.length
          ? h("ul", {}, ...settings.suggestedPrompts.map((p) => h("li", {}, `${p.title} — ${p.message}`)))
          : h("span", { class: "muted" }, t.notSet),
      ),
    ),
  );
}

function actions(context: Context, workspace: Workspace): HTMLElement {
  const t = text().workspace;
  const confirm = h("div", { class: "confirm", hidden: true });
  const ask = h("button", { type: "button", class: "danger" }, t.delete);
  ask.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "danger" }, t.deleteNamed(workspace.name));
    const no = h("button", { type: "button", class: "secondary" }, t.cancel);
    yes.addEventListener("click", async () => {
      await context.api.deleteWorkspace(workspace.tenantId, workspace.id);
      context.navigate(paths.tenant(workspace.tenantId));
    });
    no.addEventListener("click", () => {
      confirm.hidden = true;
      ask.focus();
    });
    fill(confirm, h("p", { role: "alert" }, t.confirmDelete(workspace.name)), yes, no);
    confirm.hidden = false;
    no.focus();
  });
  return h(
    "div",
    { class: "actions" },
    h("a", { class: "button", href: paths.editWorkspace(workspace.tenantId, workspace.id), "data-link": true }, t.edit),
    ask,
    confirm,
  );
}
