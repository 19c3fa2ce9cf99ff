import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { HeldHistogram } from "../src/held-histogram.ts";
import { TalliedCounter } from "../src/tallied-counter.ts";

/*
 * The ack's two records are kept outside prom-client's own metrics; what /metrics prints of them must be what
 * prom-client would have printed for the same records.
 */

const buckets = [0.001, 0.005, 0.01, 0.1, 1];
const observations: [string, number, number][] = [
  ["slack", 200, 0.0004],
  ["slack", 200, 0.001],
  ["slack", 200, 0.0049],
  ["slack", 200, 0.7],
  ["slack", 200, 3],
  ["slack", 401, 0.002],
  ["teams", 200, 0.05],
  ["teams", 503, 1],
];

/** The exposition's samples, each line's labels in one order: the two registries may order them differently. */
function samples(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const [, name, labels = "", value] = line.match(/^(\w+)(?:\{(.*)\})? (\S+)$/) ?? [];
      return `${name}{${labels.split(",").sort().join(",")}} ${value}`;
    })
    .sort();
}

describe("HeldHistogram", () => {
  it("prints what prom-client's Histogram prints for the same observations", async () => {
    const held = new Registry();
    const reference = new Registry();
    const config = { name: "ack_seconds", help: "ack latency", labelNames: ["platform", "status"] as const, buckets };
    const histogram = new HeldHistogram({ ...config, registers: [held] });
    const promHistogram = new Histogram({ ...config, labelNames: [...config.labelNames], registers: [reference] });
    for (const [platform, status, seconds] of observations) {
      histogram.series(platform, String(status)).observe(seconds);
      promHistogram.observe({ platform, status: String(status) }, seconds);
    }
    const printed = await held.metrics();
    expect(printed).toContain("# TYPE ack_seconds histogram");
    expect(samples(printed)).toEqual(samples(await reference.metrics()));
    expect(samples(printed)).toContain('ack_seconds_bucket{le="0.001",platform="slack",status="200"} 2');
  });

  it("hands out one series a label set, and starts again from zero when reset", async () => {
    const registry = new Registry();
    const histogram = new HeldHistogram({
      name: "h",
      help: "h",
      labelNames: ["a", "b"],
      buckets,
      registers: [registry],
    });
    expect(histogram.series("x", "1")).toBe(histogram.series("x", "1"));
    expect(histogram.series("x", "1")).not.toBe(histogram.series("x", "2"));
    histogram.series("x", "1").observe(0.5);
    registry.resetMetrics();
    histogram.series("x", "1").observe(0.5);
    expect(samples(await registry.metrics())).toContain('h_count{a="x",b="1"} 1');
  });

  it("refuses label values that do not match its label names", () => {
    const histogram = new HeldHistogram({ name: "h", help: "h", labelNames: ["a", "b"], buckets, registers: [] });
    expect(() => histogram.series("x")).toThrow(/takes 2 label values/);
  });
});

describe("TalliedCounter", () => {
  it("prints every increment made before each scrape, as prom-client's Counter does", async () => {
    const tallied = new Registry();
    const reference = new Registry();
    const counter = new TalliedCounter({
      name: "deliveries_total",
      help: "d",
      labelName: "platform",
      registers: [tallied],
    });
    const promCounter = new Counter({
      name: "deliveries_total",
      help: "d",
      labelNames: ["platform"],
      registers: [reference],
    });
    const count = (platforms: string[]) => {
      for (const platform of platforms) {
        counter.inc(platform);
        promCounter.inc({ platform });
      }
    };
    count(["slack", "slack", "teams"]);
    expect(samples(await tallied.metrics())).toEqual(samples(await reference.metrics()));
    count(["slack", "chatwork"]);
    const second = samples(await tallied.metrics());
    expect(second).toEqual(samples(await reference.metrics()));
    expect(second).toContain('deliveries_total{platform="slack"} 3');
    expect(samples(await tallied.metrics())).toEqual(second);
  });
});
