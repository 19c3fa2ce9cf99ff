/** One Prometheus sample: a metric name, its labels and its value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of one /metrics page, with a helper to add up a metric over the labels that match. */
export class Samples {
  constructor(readonly samples: Sample[]) {}

  /** The sum of `name`'s samples whose labels include `labels` (0 when there are none). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((total, s) => total + s.value, 0);
  }
}

/** Parses the Prometheus text format (what prom-client writes): comments skipped, labels unescaped. */
export function parseMetrics(text: string): Samples {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[label[1] as string] = (label[2] as string).replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return new Samples(samples);
}
