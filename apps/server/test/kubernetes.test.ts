import { readFile } from "node:fs/promises";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, Service, ServiceAccount } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { shutdownGraceMs } from "../src/config.ts";
import { type KubernetesObject, kubernetesDocuments, manifestsDir } from "./support/kubernetes.ts";

/*
 * infra/kubernetes, checked without a cluster: every object against its kind's Kubernetes schema (kubernetes-models
 * ships them, compiled from the API's OpenAPI), then what the schemas cannot say — which pods each Service, budget
 * and autoscaler picks, the probes' paths, where secrets come from, and whether the grace period covers shutdown.
 */

const models: Record<string, new (data: never) => { validate(): void }> = {
  "apps/v1 Deployment": Deployment,
  "autoscaling/v2 HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "networking.k8s.io/v1 Ingress": Ingress,
  "policy/v1 PodDisruptionBudget": PodDisruptionBudget,
  "v1 ConfigMap": ConfigMap,
  "v1 Namespace": Namespace,
  "v1 Service": Service,
  "v1 ServiceAccount": ServiceAccount,
};

function validate(object: KubernetesObject): void {
  const { file: _file, ...data } = object as KubernetesObject & { file?: string };
  const Model = models[`${object.apiVersion} ${object.kind}`];
  if (!Model) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
  new Model(data as never).validate();
}

const documents = await kubernetesDocuments();
const find = (kind: string, name: string) => {
  const found = documents.find((doc) => doc.kind === kind && doc.metadata?.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in infra/kubernetes`);
  return found;
};
const deployments = { web: find("Deployment", "resident-web"), worker: find("Deployment", "resident-worker") };
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);
const podLabels = (deployment: KubernetesObject) => deployment.spec.template.metadata.labels;

it("every object passes its kind's Kubernetes schema, and a broken one does not", () => {
  expect(documents.length).toBeGreaterThanOrEqual(13);
  for (const doc of documents) expect(() => validate(doc), `${doc.file}: ${doc.kind}`).not.toThrow();
  for (const doc of documents) expect(doc.metadata?.namespace ?? doc.metadata?.name, doc.file).toBe("resident");

  const broken = structuredClone(deployments.web);
  broken.spec.template.spec.containers[0].ports[0].containerPort = "3000";
  delete broken.spec.selector;
  expect(() => validate(broken)).toThrow(/containerPort must be integer|must have required property 'selector'/);
});

it("the kustomization names every manifest, so `kubectl apply -k` applies them all", async () => {
  const kustomization = parse(await readFile(new URL("kustomization.yaml", manifestsDir), "utf8")) as {
    resources: string[];
    namespace: string;
  };
  const files = [...new Set(documents.map((doc) => doc.file))];
  expect([...kustomization.resources].sort()).toEqual(files.sort());
  expect(kustomization.namespace).toBe("resident");
});

describe.each(Object.entries(deployments))("the %s Deployment", (role, deployment) => {
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];

  it(`runs ROLE=${role}, ready on /readyz, alive on /healthz, its pods picked by its own selector`, () => {
    expect(pod.containers).toHaveLength(1);
    expect(container.env).toContainEqual({ name: "ROLE", value: role });
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "internal" });
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.ports).toContainEqual({ name: "http", containerPort: 3000 });
    const config = find("ConfigMap", "resident-config").data as Record<string, string>;
    expect(container.ports).toContainEqual({ name: "internal", containerPort: Number(config.METRICS_PORT) });
    expect(matches(deployment.spec.selector.matchLabels, podLabels(deployment))).toBe(true);
    const other = role === "web" ? deployments.worker : deployments.web;
    expect(matches(deployment.spec.selector.matchLabels, podLabels(other))).toBe(false);
  });

  it("takes its secrets from the Secret, and names none in the manifest", () => {
    expect(container.envFrom).toContainEqual({ secretRef: { name: "resident-secrets" } });
    const config = find("ConfigMap", "resident-config").data as Record<string, string>;
    const literal = [...(container.env ?? []), ...Object.entries(config).map(([name, value]) => ({ name, value }))];
    const secretNames = /REDIS_URL|DATABASE_URL|SECRET_KEY|ADMIN_TOKEN|ANTHROPIC_API_KEY/;
    expect(literal.filter(({ name }: { name: string }) => secretNames.test(name))).toEqual([]);
  });

  it("is given more time to stop than the preStop pause and the service's own shutdown bound together", () => {
    const [command, seconds] = container.lifecycle.preStop.exec.command;
    expect(command).toBe("sleep");
    const needMs = Number(seconds) * 1000 + shutdownGraceMs;
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(needMs);
    // SIGTERM must reach the service's handler: node is the container's first process, not npm or a shell.
    expect(container.command.slice(0, 1)).toEqual(["node"]);
  });

  it("has a disruption budget and an autoscaler of its own", () => {
    const budget = find("PodDisruptionBudget", `resident-${role}`);
    expect(matches(budget.spec.selector.matchLabels, podLabels(deployment))).toBe(true);
    expect(budget.spec.maxUnavailable).toBe(1);
    const hpa = find("HorizontalPodAutoscaler", `resident-${role}`);
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: `resident-${role}` });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.metrics).toContainEqual({
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
    });
    // The HPA owns the replica count; one in the Deployment would be reset on every apply.
    expect(deployment.spec.replicas).toBeUndefined();
    expect(container.resources.requests.cpu).toBeDefined();
  });
});

it("scales workers on the shared queue's depth", () => {
  const hpa = find("HorizontalPodAutoscaler", "resident-worker");
  expect(hpa.spec.metrics).toContainEqual(
    expect.objectContaining({
      type: "External",
      external: expect.objectContaining({ metric: { name: "resident_queue_depth" } }),
    }),
  );
});

it("routes the Ingress to the web pods only, and reaches Redis and PostgreSQL as external services", () => {
  const service = find("Service", "resident-web");
  expect(matches(service.spec.selector, podLabels(deployments.web))).toBe(true);
  expect(matches(service.spec.selector, podLabels(deployments.worker))).toBe(false);
  const ingress = find("Ingress", "resident");
  const backends = ingress.spec.rules.flatMap((rule: { http: { paths: { backend: unknown }[] } }) =>
    rule.http.paths.map((path) => path.backend),
  );
  expect(backends).toEqual([{ service: { name: "resident-web", port: { name: "http" } } }]);
  for (const name of ["resident-redis", "resident-postgres"])
    expect(find("Service", name).spec.type).toBe("ExternalName");
});
