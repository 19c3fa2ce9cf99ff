import { h } from "../dom.ts";
import { formatAgo, formatTime } from "../format.ts";
import { text } from "../i18n/language.ts";

/** A moment as "3 minutes ago", with the exact time for those who hover or read the markup. */
export function moment(iso: string | undefined): HTMLElement {
  if (!iso) return h("span", { class: "muted" }, text().activity.never);
  return h("time", { datetime: iso, title: formatTime(iso) }, formatAgo(iso));
}
