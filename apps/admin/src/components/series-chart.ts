import type { Series, StatCounts } from "@resident/admin-api";
import { h, svg, uniqueId } from "../dom.ts";
import { formatClock, formatCount } from "../format.ts";
import { text } from "../i18n/language.ts";

interface Line {
  label: "received" | "replies" | "duplicates" | "failures";
  className: string;
  value(counts: StatCounts): number;
}

const lines: Line[] = [
  { label: "received", className: "line-events", value: (c) => c.events },
  { label: "replies", className: "line-replies", value: (c) => c.replies },
  { label: "duplicates", className: "line-duplicates", value: (c) => c.duplicateEvents + c.duplicateReplies },
  { label: "failures", className: "line-failures", value: (c) => c.failures },
];

const width = 640;
const height = 220;
const margin = { top: 12, right: 12, bottom: 28, left: 40 };

/**
 * The workspace's counts per minute (last hour) or per hour (last day) as lines, told apart by colour and by dash
 * pattern; the same numbers as a summary and a table for those who do not see the chart.
 */
export function seriesChart(series: Series): HTMLElement {
  const t = text().chart;
  const label = (line: Line) => t[line.label];
  const { points } = series;
  const totals = lines.map((line) => points.reduce((sum, point) => sum + line.value(point.counts), 0));
  const top = niceCeiling(Math.max(1, ...points.flatMap((point) => lines.map((line) => line.value(point.counts)))));
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const x = (i: number) => margin.left + (points.length < 2 ? 0 : (i / (points.length - 1)) * plotWidth);
  const y = (value: number) => margin.top + plotHeight - (value / top) * plotHeight;
  const period = series.range === "hour" ? t.lastHour : t.lastDay;
  const summaryId = uniqueId("chart-summary");
  const summary = t.summary(
    period,
    lines.map((line, i) => t.total(label(line), formatCount(totals[i] ?? 0))),
  );

  const chart = svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": summaryId, class: "chart" },
    ...[0, top / 2, top]
      .filter((value) => Number.isInteger(value))
      .map((value) =>
        svg(
          "g",
          { class: "grid" },
          svg("line", { x1: margin.left, x2: width - margin.right, y1: y(value), y2: y(value) }),
          svg("text", { x: margin.left - 6, y: y(value) + 4, "text-anchor": "end" }, formatCount(value)),
        ),
      ),
    ...lines.map((line) =>
      svg("polyline", {
        class: `line ${line.className}`,
        points: points.map((point, i) => `${x(i)},${y(line.value(point.counts))}`).join(" "),
      }),
    ),
    svg("text", { class: "axis", x: margin.left, y: height - 8 }, points[0] ? formatClock(points[0].at) : ""),
    svg("text", { class: "axis", x: width - margin.right, y: height - 8, "text-anchor": "end" }, t.now),
  );

  const busy = points.filter((point) => lines.some((line) => line.value(point.counts) > 0));
  return h(
    "figure",
    { class: "chart-figure" },
    chart,
    h(
      "figcaption",
      {},
      h(
        "ul",
        { class: "legend" },
        ...lines.map((line, i) =>
          h(
            "li",
            {},
            h("span", { class: `swatch ${line.className}`, "aria-hidden": "true" }),
            t.legend(label(line), formatCount(totals[i] ?? 0)),
          ),
        ),
      ),
      h("p", { id: summaryId, class: "visually-hidden" }, summary),
      h(
        "details",
        {},
        h("summary", {}, t.showTable),
        busy.length === 0
          ? h("p", {}, t.nothing(period))
          : h(
              "table",
              {},
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  h("th", { scope: "col" }, t.from),
                  ...lines.map((l) => h("th", { scope: "col" }, label(l))),
                ),
              ),
              h(
                "tbody",
                {},
                ...busy.map((point) =>
                  h(
                    "tr",
                    {},
                    h("th", { scope: "row" }, formatClock(point.at)),
                    ...lines.map((line) => h("td", {}, formatCount(line.value(point.counts)))),
                  ),
                ),
              ),
            ),
      ),
    ),
  );
}

/** 1, 2, 5, 10, 20, 50, … at or above `n`, so the axis reads in round numbers. */
function niceCeiling(n: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((step) => step * magnitude).find((value) => value >= n) ?? 10 * magnitude;
}
