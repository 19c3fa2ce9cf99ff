import type { FailMode, PlatformView, Workspace, WorkspaceInput } from "@resident/admin-api";
import { describeProblem } from "../api-errors.ts";
import { alertBox } from "../components/alert-box.ts";
import { credentialInputs } from "../components/credential-inputs.ts";
import { type Context, type Page, paths, platformOf } from "../context.ts";
import { h } from "../dom.ts";
import { formatCount, formatSeconds } from "../format.ts";
import { text, translated } from "../i18n/language.ts";
import { messagePage } from "./message-page.ts";

const failModes: FailMode[] = ["closed", "open"];
const ttl = { min: 60, max: 604_800, fallback: 86_400 };

/** Connects a new workspace of a platform, or changes one: everything the guide asks for, and the settings. */
export async function workspaceFormPage(
  context: Context,
  tenantId: string,
  target: { platform: string } | { id: string },
): Promise<Page> {
  const existing = "id" in target ? await context.api.workspace(tenantId, target.id) : undefined;
  const t = text();
  const platform = platformOf(context, existing?.platform ?? ("platform" in target ? target.platform : ""));
  if (!platform) return messagePage(t.errors.notFound, t.errors.platformNotEnabled);
  const title = existing ? t.form.editTitle(existing.name) : t.form.connectTitle(platform.displayName);
  const form = workspaceForm(context, tenantId, platform, existing);
  const back = existing ? paths.workspace(tenantId, existing.id) : paths.tenant(tenantId);
  return {
    title,
    element: h(
      "section",
      {},
      h("p", { class: "breadcrumb" }, h("a", { href: back, "data-link": true }, t.form.back)),
      h("h1", { tabindex: -1 }, title),
      form,
    ),
  };
}

function workspaceForm(context: Context, tenantId: string, platform: PlatformView, existing?: Workspace) {
  const t = text().form;
  const settings = existing?.settings ?? {};
  const problem = alertBox();
  const name = textInput("name", t.name, existing?.name ?? "", { required: true, maxlength: 200 });
  const credentials = credentialInputs(platform.credentialFields);
  const replace = h("input", { id: "replace-credentials", type: "checkbox" });
  if (existing) {
    credentials.setEnabled(false);
    replace.addEventListener("change", () => credentials.setEnabled(replace.checked));
  }
  const systemPrompt = h("textarea", {
    id: "systemPrompt",
    name: "systemPrompt",
    rows: 6,
    maxlength: 20_000,
    "aria-describedby": "systemPrompt-help",
  });
  systemPrompt.value = settings.systemPrompt ?? "";
  const model = textInput("model", t.model, settings.model ?? "", { maxlength: 200 });
  const chosenFailMode = settings.failMode ?? platform.defaultFailMode;
  const eventTtl = ttlInput("eventTtlSeconds", t.eventTtl, settings.eventTtlSeconds);
  const replyTtl = ttlInput("replyTtlSeconds", t.replyTtl, settings.replyTtlSeconds);
  const streaming = h("input", {
    id: "streaming",
    name: "streaming",
    type: "checkbox",
    "aria-describedby": "streaming-help",
  });
  streaming.checked = settings.streaming ?? true;
  const suggestedPrompts = h("textarea", {
    id: "suggestedPrompts",
    name: "suggestedPrompts",
    rows: 4,
    "aria-describedby": "suggestedPrompts-help",
  });
  suggestedPrompts.value = (settings.suggestedPrompts ?? []).map((p) => `${p.title} | ${p.message}`).join("\n");
  const submit = h("button", { type: "submit" }, existing ? t.save : t.connectTitle(platform.displayName));

  const read = (): WorkspaceInput => {
    const failMode = new FormData(form).get("failMode") as FailMode;
    // A new workspace sends what is set; a change also sends null for what was cleared, back to the default.
    const unset = existing ? null : undefined;
    const number = (input: HTMLInputElement) => (input.value === "" ? unset : Number(input.value));
    const entries = {
      systemPrompt: systemPrompt.value.trim() || unset,
      model: model.input.value.trim() || unset,
      failMode,
      eventTtlSeconds: number(eventTtl.input),
      replyTtlSeconds: number(replyTtl.input),
      streaming: streaming.checked,
      suggestedPrompts: promptsOf(suggestedPrompts.value) ?? unset,
    };
    return {
      ...(existing ? {} : { platform: platform.platform }),
      name: name.input.value.trim(),
      ...(!existing || replace.checked ? { credentials: credentials.values() } : {}),
      settings: Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined)),
    };
  };

  const form: HTMLFormElement = h(
    "form",
    {
      class: "card workspace-form",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        problem.clear();
        submit.disabled = true;
        try {
          const saved = existing
            ? await context.api.updateWorkspace(tenantId, existing.id, read())
            : await context.api.createWorkspace(tenantId, read());
          context.navigate(paths.workspace(tenantId, saved.id));
        } catch (error) {
          problem.show(describeProblem(error, platform));
          problem.element.focus();
        } finally {
          submit.disabled = false;
        }
      },
    },
    problem.element,
    name.element,
    h(
      "fieldset",
      {},
      h("legend", {}, t.credentials(platform.displayName)),
      existing &&
        h(
          "div",
          { class: "field" },
          h(
            "p",
            { class: "help" },
            t.storedCredentials(
              platform.credentialFields
                .filter((field) => existing.credentialFields.includes(field.name))
                .map((field) => translated(field.label))
                .join(t.listSeparator) || t.noneSet,
              platform.displayName,
            ),
          ),
          h("div", { class: "choice" }, replace, h("label", { for: "replace-credentials" }, t.replaceCredentials)),
        ),
      credentials.element,
    ),
    h(
      "fieldset",
      {},
      h("legend", {}, t.agent),
      h(
        "div",
        { class: "field" },
        h("label", { for: "systemPrompt" }, t.systemPrompt),
        h("p", { class: "help", id: "systemPrompt-help" }, t.systemPromptHelp),
        systemPrompt,
      ),
      model.element,
    ),
    h(
      "fieldset",
      {},
      h("legend", {}, t.answers),
      h(
        "div",
        { class: "field" },
        h("div", { class: "choice" }, streaming, h("label", { for: "streaming" }, t.streaming)),
        h("p", { class: "help", id: "streaming-help" }, t.streamingHelp),
      ),
      h(
        "div",
        { class: "field" },
        h("label", { for: "suggestedPrompts" }, t.suggestedPrompts),
        h("p", { class: "help", id: "suggestedPrompts-help" }, t.suggestedPromptsHelp),
        suggestedPrompts,
      ),
    ),
    failModeFieldset(platform, chosenFailMode),
    h(
      "fieldset",
      {},
      h("legend", {}, t.duplicateProtection),
      h(
        "p",
        { class: "help", id: "ttl-help" },
        t.ttlHelp(formatCount(ttl.min), formatCount(ttl.max), formatCount(ttl.fallback), formatSeconds(ttl.fallback)),
      ),
      eventTtl.element,
      replyTtl.element,
    ),
    h("div", { class: "actions" }, submit),
  );
  problem.element.tabIndex = -1;
  return form;
}

function failModeFieldset(platform: PlatformView, chosen: FailMode): HTMLElement {
  const t = text().form;
  return h(
    "fieldset",
    { class: "fail-modes" },
    h("legend", {}, t.failModeLegend),
    h("p", { class: "help" }, translated(platform.outageBehaviour)),
    ...failModes.map((mode) => {
      const id = `failMode-${mode}`;
      const label =
        mode === platform.defaultFailMode ? t.defaultFor(t.failMode[mode], platform.displayName) : t.failMode[mode];
      return h(
        "div",
        { class: "choice described" },
        h("input", {
          id,
          type: "radio",
          name: "failMode",
          value: mode,
          checked: mode === chosen,
          "aria-describedby": `${id}-consequence`,
        }),
        h("label", { for: id }, label),
        h("p", { id: `${id}-consequence`, class: "help" }, translated(platform.failModeConsequences[mode])),
      );
    }),
  );
}

/** One prompt per line, "title | message" (a line without a bar is both); undefined when there is none. */
function promptsOf(value: string): { title: string; message: string }[] | undefined {
  const prompts = value
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => {
      const bar = line.indexOf("|");
      if (bar === -1) return { title: line, message: line };
      return { title: line.slice(0, bar).trim(), message: line.slice(bar + 1).trim() };
    });
  return prompts.length > 0 ? prompts : undefined;
}

function textInput(id: string, label: string, value: string, attributes: { required?: boolean; maxlength?: number }) {
  const input = h("input", { id, name: id, type: "text", value, autocomplete: "off", ...attributes });
  return { input, element: h("div", { class: "field" }, h("label", { for: id }, label), input) };
}

function ttlInput(id: string, label: string, value?: number) {
  const input = h("input", {
    id,
    name: id,
    type: "number",
    min: ttl.min,
    max: ttl.max,
    step: 1,
    value: value ?? "",
    "aria-describedby": "ttl-help",
  });
  return { input, element: h("div", { class: "field" }, h("label", { for: id }, label), input) };
}
