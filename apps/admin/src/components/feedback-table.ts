import type { WorkspaceFeedback } from "@resident/admin-api";
import { h } from "../dom.ts";
import { formatCount, formatDay } from "../format.ts";
import { text } from "../i18n/language.ts";
import { dataTable } from "./data-table.ts";

/** A workspace's votes per day, newest first, with the week's totals above. */
export function feedbackTable({ days }: WorkspaceFeedback): HTMLElement {
  const t = text().feedback;
  const total = (vote: "positive" | "negative") => formatCount(days.reduce((sum, day) => sum + day[vote], 0));
  const rows = [...days]
    .reverse()
    .map((day) =>
      h(
        "tr",
        { "data-day": day.day },
        h("th", { scope: "row" }, formatDay(day.day)),
        h("td", { "data-vote": "positive" }, formatCount(day.positive)),
        h("td", { "data-vote": "negative" }, formatCount(day.negative)),
      ),
    );
  return h(
    "div",
    {},
    h("p", { class: "feedback-summary" }, t.summary(total("positive"), total("negative"))),
    dataTable(t.caption, [t.day, t.positive, t.negative], rows),
  );
}
