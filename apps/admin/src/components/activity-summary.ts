import type { Activity } from "../api-types.ts";
import { h } from "../dom.ts";
import { moment } from "./moment.ts";

/** Last event, last reply and last error of a workspace, as a description list. */
export function activitySummary(activity: Activity = {}): HTMLElement {
  const { lastError } = activity;
  return h(
    "dl",
    { class: "activity" },
    h("dt", {}, "Last message received"),
    h("dd", {}, moment(activity.lastEventAt)),
    h("dt", {}, "Last reply sent"),
    h("dd", {}, moment(activity.lastReplyAt)),
    h("dt", {}, "Last error"),
    h(
      "dd",
      {},
      lastError
        ? h("span", { class: "error-text" }, moment(lastError.at), ` at ${lastError.stage}: ${lastError.message}`)
        : h("span", { class: "muted" }, "none"),
    ),
  );
}
