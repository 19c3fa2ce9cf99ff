import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type InProcessService, startInProcessService } from "./support/in-process-service.ts";
import { kubernetesDocuments } from "./support/kubernetes.ts";

/*
 * The Grafana dashboard, the Prometheus alert rules and the worker HPA's queue metric may name only metrics that an
 * instance's /metrics really exposes; promtool checks the rules' syntax and runs their unit tests (alerts.test.yml).
 */

const run = promisify(execFile);
const infra = new URL("../../../infra/", import.meta.url);
const rulesFile = new URL("prometheus/alerts.yml", infra);

interface Dashboard {
  panels: { type: string; id: number; title: string; datasource?: { uid: string }; targets?: { expr: string }[] }[];
}

const dashboard = async () =>
  JSON.parse(await readFile(new URL("grafana/resident.dashboard.json", infra), "utf8")) as Dashboard;
const rules = async () =>
  (
    parse(await readFile(rulesFile, "utf8")) as { groups: { rules: { alert: string; expr: string }[] }[] }
  ).groups.flatMap((group) => group.rules);

/**
 * The metric names a PromQL expression selects: what is left once strings, label matchers, ranges and label lists
 * are taken out, less function names (followed by a parenthesis) and operators.
 */
function metricNames(expr: string): string[] {
  const selectors = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "");
  const keywords = new Set(["and", "or", "unless", "bool", "offset", "inf", "nan"]);
  return [...selectors.matchAll(/\b[A-Za-z_:][\w:]*\b(?!\s*\()/g)]
    .map(([name]) => name)
    .filter((name) => !keywords.has(name.toLowerCase()));
}

/** Every sample name /metrics can carry, from its TYPE lines (histograms as their _bucket, _sum and _count). */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (!name) continue;
    names.add(name);
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${name}${suffix}`);
  }
  return names;
}

describe("the metrics that dashboards, alerts and the autoscaler name", () => {
  let service: InProcessService;
  let exposed: Set<string>;
  beforeAll(async () => {
    service = await startInProcessService();
    exposed = exposedNames(await (await fetch(`${service.url}/metrics`)).text());
  });
  afterAll(() => service?.close());

  it("are all exposed by a real instance's /metrics", async () => {
    const named = new Map<string, string>();
    for (const panel of (await dashboard()).panels) {
      for (const target of panel.targets ?? []) named.set(`panel "${panel.title}": ${target.expr}`, target.expr);
    }
    for (const rule of await rules()) named.set(`alert ${rule.alert}`, rule.expr);
    for (const doc of await kubernetesDocuments()) {
      for (const metric of doc.spec?.metrics ?? []) {
        const name = metric.external?.metric.name ?? metric.pods?.metric.name;
        if (name) named.set(`HPA ${doc.metadata?.name}`, name);
      }
    }
    expect(named.size).toBeGreaterThan(25);
    const missing: string[] = [];
    for (const [where, expr] of named) {
      const names = metricNames(expr);
      expect(names, where).not.toHaveLength(0);
      missing.push(...names.filter((name) => !exposed.has(name)).map((name) => `${name} (${where})`));
    }
    expect(missing).toEqual([]);
  });

  it("include the queue depth and the shared store's and the database's reachability as gauges", async () => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    expect(text).toMatch(/^resident_queue_depth 0$/m);
    expect(text).toMatch(/^resident_shared_store_up 1$/m);
    expect(text).toMatch(/^resident_database_up 1$/m);
  });
});

it("reads metric names out of PromQL, and only them", () => {
  expect(
    metricNames(
      'histogram_quantile(0.99, sum by (le, platform) (rate(resident_ack_latency_seconds_bucket{platform=~"$p"}[5m])))',
    ),
  ).toEqual(["resident_ack_latency_seconds_bucket"]);
  expect(
    metricNames("max(a_depth) > 50 and deriv(max(a_depth)[15m:1m]) > 0 unless on (instance) b_up == bool 1"),
  ).toEqual(["a_depth", "a_depth", "b_up"]);
});

it("the alert rules pass promtool's check and its unit tests", async () => {
  const checked = await run("promtool", ["check", "rules", rulesFile.pathname]);
  expect(checked.stdout).toMatch(/SUCCESS: 8 rules found/);
  const tested = await run("promtool", ["test", "rules", new URL("prometheus/alerts.test.yml", infra).pathname]);
  expect(tested.stdout).toMatch(/SUCCESS/);
});

it("every dashboard panel reads the chosen Prometheus data source, under an id of its own", async () => {
  const { panels } = await dashboard();
  const charts = panels.filter((panel) => panel.type !== "row");
  expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length);
  for (const panel of charts) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
    expect(panel.datasource?.uid, panel.title).toBe("${datasource}");
    expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
  }
});
