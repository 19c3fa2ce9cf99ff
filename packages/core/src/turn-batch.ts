/**
 * The calls of one event-loop turn, run as one: the first call of a turn schedules the run (`setImmediate`), every
 * call of the same turn joins it, and each caller gets its own outcome. `run` gets the batch's items and returns one
 * outcome per item, in their order; if it throws, every caller of that batch gets the error. Items with a key (`keysOf`)
 * of an item already in the batch wait for the next turn's batch, so that one run never holds a key twice (a run
 * that takes its items in order, as a Redis script does, needs no keys).
 *
 * Hand-written because the stores' clients send each call on its own: a database statement (or Redis write) per
 * concurrent job, each a socket write and a wake-up of the server, where one multi-row statement does the same work.
 */
export class TurnBatch<I, O> {
  private pending: Waiting<I, O>[] = [];

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly keysOf?: (item: I) => readonly string[],
  ) {}

  call(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (this.pending.push({ item, resolve, reject }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.keysOf ? this.takeDistinct(this.keysOf) : this.takeAll();
    try {
      const outcomes = await this.run(batch.map((waiting) => waiting.item));
      for (let i = 0; i < batch.length; i++) batch[i]?.resolve(outcomes[i] as O);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }

  private takeAll(): Waiting<I, O>[] {
    const all = this.pending;
    this.pending = [];
    return all;
  }

  /** The pending calls whose keys no earlier one holds; the others stay pending for the next turn's batch. */
  private takeDistinct(keysOf: (item: I) => readonly string[]): Waiting<I, O>[] {
    const batch: Waiting<I, O>[] = [];
    const later: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    for (const waiting of this.pending) {
      const own = keysOf(waiting.item);
      (own.some((key) => keys.has(key)) ? later : batch).push(waiting);
      for (const key of own) keys.add(key);
    }
    this.pending = later;
    if (later.length > 0) setImmediate(() => void this.flush());
    return batch;
  }
}

interface Waiting<I, O> {
  item: I;
  resolve: (outcome: O) => void;
  reject: (error: unknown) => void;
}
