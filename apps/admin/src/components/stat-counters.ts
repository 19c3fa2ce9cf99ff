import type { StatCounts } from "@resident/admin-api";
import { h } from "../dom.ts";
import { formatCount } from "../format.ts";
import { text } from "../i18n/language.ts";

/** The cluster-wide counters of one workspace; the duplicates resident stopped come first after what it received. */
export function statCounters(counts: StatCounts): HTMLElement {
  const t = text().counters;
  const prevented = counts.duplicateEvents + counts.duplicateReplies;
  const [before, after] = t.prevented(prevented);
  return h(
    "div",
    {},
    h(
      "p",
      { class: "headline" },
      before,
      h("strong", { "data-stat": "duplicatesPrevented" }, formatCount(prevented)),
      after,
    ),
    h(
      "dl",
      { class: "counters" },
      // In the order the API counts them (core's statCounters), each named by the catalogue.
      ...(Object.keys(counts) as (keyof StatCounts)[]).map((counter) =>
        h(
          "div",
          { class: `counter counter-${counter}` },
          h("dt", {}, t[counter]),
          h("dd", { "data-stat": counter }, formatCount(counts[counter])),
        ),
      ),
    ),
  );
}
