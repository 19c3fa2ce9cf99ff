import type { AuditEntry } from "@resident/admin-api";
import { type Context, type Page, platformOf } from "../context.ts";
import { h } from "../dom.ts";
import { fieldLabel } from "../field-labels.ts";
import { formatTime } from "../format.ts";
import { text } from "../i18n/language.ts";
import { tenantName } from "./tenant-name.ts";

/** Who changed what, and when: field names only, never a value. */
export async function auditPage(context: Context, tenantId: string): Promise<Page> {
  const t = text().audit;
  const [name, entries] = await Promise.all([tenantName(context, tenantId), context.api.audit(tenantId)]);
  const title = t.title(name);
  const { columns } = t;
  return {
    title,
    element: h(
      "section",
      {},
      h("h1", { tabindex: -1 }, title),
      h("p", {}, t.intro),
      entries.length === 0
        ? h("p", {}, t.none)
        : h(
            "table",
            { class: "audit" },
            h("caption", { class: "visually-hidden" }, title),
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ...[columns.when, columns.who, columns.what, columns.target, columns.fields].map((label) =>
                  h("th", { scope: "col" }, label),
                ),
              ),
            ),
            h("tbody", {}, ...entries.map((entry) => auditRow(context, entry))),
          ),
    ),
  };
}

/** Fields by the console's name for them; identifiers (a token's id, the target, a field it does not know) as code. */
function auditRow(context: Context, entry: AuditEntry): HTMLElement {
  const t = text().audit;
  const actions: Record<string, string> = t.actions;
  const who =
    entry.actor === "operator"
      ? t.operator
      : entry.actor === "system"
        ? t.system
        : h("span", {}, `${t.adminToken} `, h("code", {}, entry.actor));
  const platform = entry.detail.platform;
  return h(
    "tr",
    {},
    h("td", {}, h("time", { datetime: entry.at }, formatTime(entry.at))),
    h("td", {}, who),
    h(
      "td",
      {},
      actions[entry.action] ?? h("code", {}, entry.action),
      platform && t.onPlatform(platformOf(context, platform)?.displayName ?? platform),
    ),
    h("td", {}, h("code", {}, entry.target)),
    h(
      "td",
      {},
      ...(entry.detail.fields ?? []).flatMap((field, i) => [
        i > 0 && text().form.listSeparator,
        fieldLabel(field, context.platforms) ?? h("code", {}, field),
      ]),
    ),
  );
}
