import { ApiError } from "../api.ts";
import type { FailMode, PlatformView, Workspace, WorkspaceInput } from "../api-types.ts";
import { alertBox } from "../components/alert-box.ts";
import { credentialInputs } from "../components/credential-inputs.ts";
import { type Context, type Page, paths, platformOf } from "../context.ts";
import { h } from "../dom.ts";
import { messagePage } from "./message-page.ts";

const failModes: FailMode[] = ["closed", "open"];

/** Connects a new workspace of a platform, or changes one: everything the guide asks for, and the settings. */
export async function workspaceFormPage(
  context: Context,
  tenantId: string,
  target: { platform: string } | { id: string },
): Promise<Page> {
  const existing = "id" in target ? await context.api.workspace(tenantId, target.id) : undefined;
  const platform = platformOf(context, existing?.platform ?? ("platform" in target ? target.platform : ""));
  if (!platform) return messagePage("Not found", "That platform is not enabled on this server.");
  const title = existing ? `Edit ${existing.name}` : `Connect ${platform.displayName}`;
  const form = workspaceForm(context, tenantId, platform, existing);
  const back = existing ? paths.workspace(tenantId, existing.id) : paths.tenant(tenantId);
  return {
    title,
    element: h(
      "section",
      {},
      h("p", { class: "breadcrumb" }, h("a", { href: back, "data-link": true }, "Back")),
      h("h1", { tabindex: -1 }, title),
      form,
    ),
  };
}

function workspaceForm(context: Context, tenantId: string, platform: PlatformView, existing?: Workspace) {
  const settings = existing?.settings ?? {};
  const problem = alertBox();
  const name = textInput("name", "Name", existing?.name ?? "", { required: true, maxlength: 200 });
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
  const model = textInput("model", "Model (optional)", settings.model ?? "", { maxlength: 200 });
  const chosenFailMode = settings.failMode ?? platform.defaultFailMode;
  const eventTtl = ttlInput("eventTtlSeconds", "Remember deliveries for (seconds, optional)", settings.eventTtlSeconds);
  const replyTtl = ttlInput("replyTtlSeconds", "Remember replies for (seconds, optional)", settings.replyTtlSeconds);
  const submit = h("button", { type: "submit" }, existing ? "Save changes" : `Connect ${platform.displayName}`);

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
          problem.show(
            error instanceof ApiError ? error.message : String(error),
            error instanceof ApiError ? error.issues : [],
          );
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
      h("legend", {}, `${platform.displayName} credentials`),
      existing &&
        h(
          "div",
          { class: "field" },
          h(
            "p",
            { class: "help" },
            "Stored credentials are never shown again. Set: ",
            platform.credentialFields
              .filter((field) => existing.credentialFields.includes(field.name))
              .map((field) => field.label)
              .join(", ") || "none",
            ". To change them, replace them all; resident checks the new ones with ",
            platform.displayName,
            " before saving.",
          ),
          h("div", { class: "choice" }, replace, h("label", { for: "replace-credentials" }, "Replace the credentials")),
        ),
      credentials.element,
    ),
    h(
      "fieldset",
      {},
      h("legend", {}, "Agent"),
      h(
        "div",
        { class: "field" },
        h("label", { for: "systemPrompt" }, "System prompt (optional)"),
        h("p", { class: "help", id: "systemPrompt-help" }, "Who the agent is and how it answers. Empty: the default."),
        systemPrompt,
      ),
      model.element,
    ),
    failModeFieldset(platform, chosenFailMode),
    h(
      "fieldset",
      {},
      h("legend", {}, "Duplicate protection"),
      h(
        "p",
        { class: "help", id: "ttl-help" },
        "How long resident remembers a delivery and a reply, so that a late redelivery is still recognised. " +
          "From 60 to 604800 seconds; empty: 86400 (24 hours).",
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
  return h(
    "fieldset",
    { class: "fail-modes" },
    h("legend", {}, "If Redis and PostgreSQL are both down"),
    h("p", { class: "help" }, platform.outageBehaviour),
    ...failModes.map((mode) => {
      const id = `failMode-${mode}`;
      const isDefault = mode === platform.defaultFailMode ? ` (default for ${platform.displayName})` : "";
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
        h("label", { for: id }, `Fail ${mode}${isDefault}`),
        h("p", { id: `${id}-consequence`, class: "help" }, platform.failModeConsequences[mode]),
      );
    }),
  );
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
    min: 60,
    max: 604_800,
    step: 1,
    value: value ?? "",
    "aria-describedby": "ttl-help",
  });
  return { input, element: h("div", { class: "field" }, h("label", { for: id }, label), input) };
}
