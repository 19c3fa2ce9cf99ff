import { h } from "../dom.ts";
import { formatAgo, formatTime } from "../format.ts";

/** A moment as "3 minutes ago", with the exact time for those who hover or read the markup. */
export function moment(iso: string | undefined, never = "never"): HTMLElement {
  if (!iso) return h("span", { class: "muted" }, never);
  return h("time", { datetime: iso, title: formatTime(iso) }, formatAgo(iso));
}
