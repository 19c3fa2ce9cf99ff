import type { Histogram, Registry } from "prom-client";

/** One line of a metric as prom-client's registry prints it. */
interface Sample {
  metricName: string;
  labels: Readonly<Record<string, string | number>>;
  value: number;
}

/** One label set's counts, held by whoever records into it: an observation is a bucket's increment, a sum, a count. */
export class HistogramSeries {
  private sum = 0;
  private count = 0;
  /** Per bucket, not cumulative; the last is +Inf's own. */
  private readonly buckets: Float64Array;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    let bucket = 0;
    while (bucket < this.bounds.length && value > (this.bounds[bucket] as number)) bucket++;
    (this.buckets[bucket] as number)++;
    this.sum += value;
    this.count++;
  }

  /** The series as Prometheus reads it: cumulative buckets, +Inf, sum and count. */
  values(name: string): Sample[] {
    let seen = 0;
    const buckets = this.bounds.map((le, i) => {
      seen += this.buckets[i] as number;
      return { labels: { ...this.labels, le }, value: seen, metricName: `${name}_bucket` };
    });
    return [
      ...buckets,
      { labels: { ...this.labels, le: "+Inf" }, value: this.count, metricName: `${name}_bucket` },
      { labels: this.labels, value: this.sum, metricName: `${name}_sum` },
      { labels: this.labels, value: this.count, metricName: `${name}_count` },
    ];
  }
}

export interface HeldHistogramConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  buckets: readonly number[];
  registers: Registry[];
}

/**
 * A Prometheus histogram whose series are looked up once per label set, for a record made on every request.
 * prom-client's `observe` resolves its labels on each call — checks them, builds their key, looks the series up,
 * turns the bucket's bound into a property name — and with the deliveries' counter that took 3 % of the ack's CPU
 * in the service (infra/bench/JOURNAL.md, "Whole layers off the ack"). Here the series is found by its label values,
 * one Map a label, and printed in prom-client's format by its registry like any of its metrics.
 */
export class HeldHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly labelNames: readonly L[];
  private readonly bounds: readonly number[];
  private root = new Map<string, unknown>();
  private all: HistogramSeries[] = [];

  constructor({ name, help, labelNames, buckets, registers }: HeldHistogramConfig<L>) {
    if (labelNames.length === 0) throw new Error(`${name}: a held histogram's series are found by their labels`);
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    this.bounds = [...buckets].sort((a, b) => a - b);
    // prom-client's Registry types name only its own classes; it reads a metric through the members above and get().
    for (const registry of registers) registry.registerMetric(this as unknown as Histogram<L>);
  }

  /** The series of these label values, in `labelNames`' order. */
  series(...values: string[]): HistogramSeries {
    if (values.length !== this.labelNames.length) {
      throw new Error(`${this.name} takes ${this.labelNames.length} label values, not ${values.length}`);
    }
    let level = this.root;
    for (let i = 0; i < values.length - 1; i++) {
      const value = values[i] as string;
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (!next) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const last = values[values.length - 1] as string;
    let series = level.get(last) as HistogramSeries | undefined;
    if (!series) {
      series = this.create(values);
      level.set(last, series);
    }
    return series;
  }

  async get() {
    const { name, help, type, aggregator } = this;
    return { name, help, type, aggregator, values: this.all.flatMap((series) => series.values(name)) };
  }

  reset(): void {
    this.root = new Map();
    this.all = [];
  }

  private create(values: string[]): HistogramSeries {
    const labels = Object.fromEntries(this.labelNames.map((label, i) => [label, values[i] as string]));
    const series = new HistogramSeries(labels, this.bounds);
    this.all.push(series);
    return series;
  }
}
