import type { Activity } from "@resident/admin-api";
import { h } from "../dom.ts";
import { text } from "../i18n/language.ts";
import { moment } from "./moment.ts";

/** Last event, last reply and last error of a workspace, as a description list. */
export function activitySummary(activity: Activity = {}): HTMLElement {
  const t = text().activity;
  const { lastError } = activity;
  return h(
    "dl",
    { class: "activity" },
    h("dt", {}, t.lastMessage),
    h("dd", {}, moment(activity.lastEventAt)),
    h("dt", {}, t.lastReply),
    h("dd", {}, moment(activity.lastReplyAt)),
    h("dt", {}, t.lastError),
    h(
      "dd",
      {},
      lastError
        ? h(
            "span",
            { class: "error-text" },
            moment(lastError.at),
            t.failedAt(t.stages[lastError.stage]),
            // What failed, in the words of the part that failed (a platform's or the LLM's error).
            h("span", { lang: "en" }, lastError.message),
          )
        : h("span", { class: "muted" }, t.none),
    ),
  );
}
