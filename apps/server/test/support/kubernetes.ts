import { readdir, readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";

export const manifestsDir = new URL("../../../../infra/kubernetes/", import.meta.url);

/** The parts of a Kubernetes object the tests read; the schema validation checks the whole of it. */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: each kind's spec is checked against its schema by kubernetes-models
  spec?: any;
  [field: string]: unknown;
}

/**
 * Every object of every manifest in infra/kubernetes (one file may hold several, `---`-separated), by file; the
 * kustomization is kustomize's, not an API object.
 */
export async function kubernetesDocuments(): Promise<(KubernetesObject & { file: string })[]> {
  const files = (await readdir(manifestsDir)).filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml");
  const documents: (KubernetesObject & { file: string })[] = [];
  for (const file of files.sort()) {
    for (const doc of parseAllDocuments(await readFile(new URL(file, manifestsDir), "utf8"))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join("; ")}`);
      documents.push({ ...(doc.toJS() as KubernetesObject), file });
    }
  }
  return documents;
}
