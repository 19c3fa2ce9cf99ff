import type { ToolList, ToolServer, Workspace } from "@resident/admin-api";
import { ApiError } from "@resident/admin-api";
import { describeProblem } from "../api-errors.ts";
import { alertBox } from "../components/alert-box.ts";
import { cardForm } from "../components/card-form.ts";
import type { Context } from "../context.ts";
import { fill, h } from "../dom.ts";
import { text } from "../i18n/language.ts";

/**
 * The MCP servers whose tools the workspace's agent may call: each with its tools on demand and a way to detach it,
 * and a form to attach another. The auth header's value goes in and is never shown again.
 */
export async function toolServersSection(context: Context, workspace: Workspace): Promise<HTMLElement> {
  const t = text().tools;
  const { api } = context;
  const list = h("div", { class: "tool-servers" });
  const show = async () => {
    const servers = await api.toolServers(workspace.tenantId, workspace.id);
    fill(
      list,
      servers.length === 0
        ? h("p", { class: "muted" }, t.none)
        : h("ul", { class: "servers" }, ...servers.map((server) => serverItem(context, workspace, server, show))),
    );
  };
  await show();

  const problem = alertBox();
  const name = h("input", { id: "mcp-name", name: "name", required: true, maxlength: 24, autocomplete: "off" });
  const url = h("input", { id: "mcp-url", name: "url", type: "url", required: true, autocomplete: "off" });
  const header = h("input", { id: "mcp-header", name: "header", value: "Authorization", autocomplete: "off" });
  const value = h("input", { id: "mcp-value", name: "value", type: "password", autocomplete: "off" });
  const attached = h("div", { role: "status" });
  const form = cardForm(
    problem,
    async () => {
      try {
        const server = await api.attachToolServer(workspace.tenantId, workspace.id, {
          name: name.value.trim(),
          url: url.value.trim(),
          ...(value.value !== "" && { authHeader: { name: header.value.trim(), value: value.value } }),
        });
        name.value = "";
        url.value = "";
        value.value = "";
        fill(attached, h("p", { class: "ok-text" }, t.attached(server.name, server.tools.length)));
        await show();
      } catch (error) {
        fill(attached);
        if (error instanceof ApiError && error.status === 422) {
          problem.show({ message: t.unreachable, details: [h("span", { lang: "en" }, String(error.answer.detail))] });
        } else problem.show(describeProblem(error));
      }
    },
    h("h3", {}, t.attachTitle),
    problem.element,
    h("label", { for: "mcp-name" }, t.nameLabel),
    h("p", { class: "help" }, t.nameHelp),
    name,
    h("label", { for: "mcp-url" }, t.urlLabel),
    url,
    h("label", { for: "mcp-header" }, t.headerLabel),
    header,
    h("label", { for: "mcp-value" }, t.valueLabel),
    h("p", { class: "help" }, t.valueHelp),
    value,
    h("div", { class: "actions" }, h("button", { type: "submit" }, t.attach)),
    attached,
  );

  return h(
    "section",
    { class: "card", "aria-labelledby": "tools-title" },
    h("h2", { id: "tools-title" }, t.title),
    h("p", {}, t.intro),
    list,
    form,
  );
}

function serverItem(context: Context, workspace: Workspace, server: ToolServer, changed: () => Promise<void>) {
  const t = text().tools;
  const tools = h("div", { class: "tool-list", role: "status" });
  const showTools = h("button", { type: "button", class: "secondary" }, t.showTools(server.name));
  showTools.addEventListener("click", async () => {
    showTools.disabled = true;
    fill(tools, h("p", {}, t.listing));
    try {
      fill(tools, toolList(await context.api.toolsOf(workspace.tenantId, workspace.id, server.id)));
    } catch (error) {
      fill(tools, h("p", { class: "error-text" }, describeProblem(error).message));
    } finally {
      showTools.disabled = false;
    }
  });
  const detach = h("button", { type: "button", class: "danger" }, t.detach(server.name));
  detach.addEventListener("click", async () => {
    detach.disabled = true;
    try {
      await context.api.detachToolServer(workspace.tenantId, workspace.id, server.id);
      await changed();
    } catch (error) {
      detach.disabled = false;
      fill(tools, h("p", { class: "error-text" }, describeProblem(error).message));
    }
  });
  return h(
    "li",
    { "data-tool-server": server.name },
    h("strong", {}, server.name),
    " ",
    h("code", {}, server.url),
    h("p", { class: "muted" }, server.authHeader ? t.headerSet(server.authHeader.name) : t.noHeader),
    h("div", { class: "actions" }, showTools, detach),
    tools,
  );
}

function toolList(list: ToolList): HTMLElement {
  const t = text().tools;
  if (!list.ok) {
    return h("div", { class: "error-text" }, h("p", {}, t.unreachable), h("p", { lang: "en" }, list.error));
  }
  if (list.tools.length === 0) return h("p", { class: "muted" }, t.noTools);
  return h(
    "ul",
    { class: "tools" },
    ...list.tools.map((tool) =>
      h(
        "li",
        {},
        h("code", {}, tool.name),
        tool.description && " — ",
        tool.description && h("span", { lang: "en" }, tool.description),
      ),
    ),
  );
}
