import type { ReceiverConnections } from "@resident/admin-api";
import { h } from "../dom.ts";
import { text } from "../i18n/language.ts";
import { dataTable } from "./data-table.ts";
import { moment } from "./moment.ts";

/** The connections the cluster holds open for a workspace (Slack Socket Mode): which instance holds each, since when. */
export function receiverConnections(view: ReceiverConnections): HTMLElement {
  const t = text().connections;
  if (view.connections.length === 0) return h("p", { class: "error-text" }, t.none);
  const open = view.connections.filter((c) => c.state === "open").length;
  const instances = new Set(view.connections.map((c) => c.instanceId)).size;
  return h(
    "div",
    {},
    h("p", {}, t.summary(open, instances)),
    dataTable(
      t.caption,
      [t.slot, t.instance, t.state, t.since],
      view.connections.map((c) =>
        h(
          "tr",
          {},
          h("td", {}, String(c.slot + 1)),
          h("td", {}, h("code", {}, c.instanceId)),
          h("td", {}, c.state === "open" ? t.open : t.connecting),
          h("td", {}, moment(c.since)),
        ),
      ),
    ),
  );
}
