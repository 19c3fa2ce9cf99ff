import type { StatCounts } from "../api-types.ts";
import { h } from "../dom.ts";
import { formatCount } from "../format.ts";

const labels: [keyof StatCounts, string][] = [
  ["events", "Messages received"],
  ["duplicateEvents", "Duplicate deliveries suppressed"],
  ["replies", "Replies sent"],
  ["duplicateReplies", "Duplicate replies suppressed"],
  ["failures", "Failures"],
  ["llmTokens", "LLM tokens"],
];

/** The cluster-wide counters of one workspace; the duplicates resident stopped come first after what it received. */
export function statCounters(counts: StatCounts): HTMLElement {
  const prevented = counts.duplicateEvents + counts.duplicateReplies;
  return h(
    "div",
    {},
    h(
      "p",
      { class: "headline" },
      h("strong", { "data-stat": "duplicatesPrevented" }, formatCount(prevented)),
      prevented === 1 ? " duplicate answer prevented" : " duplicate answers prevented",
    ),
    h(
      "dl",
      { class: "counters" },
      ...labels.map(([counter, label]) =>
        h(
          "div",
          { class: `counter counter-${counter}` },
          h("dt", {}, label),
          h("dd", { "data-stat": counter }, formatCount(counts[counter])),
        ),
      ),
    ),
  );
}
