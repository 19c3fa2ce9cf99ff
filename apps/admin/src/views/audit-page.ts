import type { AuditEntry } from "../api-types.ts";
import type { Context, Page } from "../context.ts";
import { h } from "../dom.ts";
import { formatTime } from "../format.ts";
import { tenantName } from "./tenant-name.ts";

const actions: Record<string, string> = {
  "tenant.create": "created the tenant",
  "tenant.update": "changed the tenant",
  "token.issue": "issued an admin token",
  "token.revoke": "revoked an admin token",
  "workspace.create": "connected a workspace",
  "workspace.update": "changed a workspace",
  "workspace.delete": "deleted a workspace",
};

/** Who changed what, and when: field names only, never a value. */
export async function auditPage(context: Context, tenantId: string): Promise<Page> {
  const [name, entries] = await Promise.all([tenantName(context, tenantId), context.api.audit(tenantId)]);
  const title = `Audit log of ${name}`;
  return {
    title,
    element: h(
      "section",
      {},
      h("h1", { tabindex: -1 }, title),
      h(
        "p",
        {},
        "Every change made through the admin API, newest first. Values are never recorded: only which fields.",
      ),
      entries.length === 0
        ? h("p", {}, "Nothing has been changed yet.")
        : h(
            "table",
            { class: "audit" },
            h("caption", { class: "visually-hidden" }, title),
            h(
              "thead",
              {},
              h("tr", {}, ...["When", "Who", "What", "Target", "Fields"].map((l) => h("th", { scope: "col" }, l))),
            ),
            h("tbody", {}, ...entries.map(auditRow)),
          ),
    ),
  };
}

function auditRow(entry: AuditEntry): HTMLElement {
  const who = entry.actor === "operator" || entry.actor === "system" ? entry.actor : `admin token ${entry.actor}`;
  return h(
    "tr",
    {},
    h("td", {}, h("time", { datetime: entry.at }, formatTime(entry.at))),
    h("td", {}, who),
    h("td", {}, actions[entry.action] ?? entry.action, entry.detail.platform && ` (${entry.detail.platform})`),
    h("td", {}, h("code", {}, entry.target)),
    h("td", {}, (entry.detail.fields ?? []).join(", ")),
  );
}
