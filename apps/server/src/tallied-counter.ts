import { Counter, type Registry } from "prom-client";

export interface TalliedCounterConfig {
  name: string;
  help: string;
  labelName: string;
  registers: Registry[];
}

/**
 * A counter of one label for a count made on every request: counted in a Map by the label's value and added to
 * prom-client's counter when it is scraped, so that an increment is one Map update instead of prom-client's `inc`,
 * which builds and checks the labels' key on each call (infra/bench/JOURNAL.md, "Whole layers off the ack"). Every
 * scrape reads every increment made before it.
 */
export class TalliedCounter {
  private readonly tally = new Map<string, number>();

  constructor({ name, help, labelName, registers }: TalliedCounterConfig) {
    const { tally } = this;
    new Counter({
      name,
      help,
      labelNames: [labelName],
      registers,
      collect() {
        for (const [value, count] of tally) this.inc({ [labelName]: value }, count);
        tally.clear();
      },
    });
  }

  inc(labelValue: string): void {
    this.tally.set(labelValue, (this.tally.get(labelValue) ?? 0) + 1);
  }
}
