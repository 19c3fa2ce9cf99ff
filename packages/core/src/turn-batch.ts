export interface TurnBatchOptions<I> {
  /**
   * Keys of an item: an item sharing one with an item already in the batch waits for the next run, so that one run
   * never holds a key twice (a run that takes its items in order, as a Redis script does, needs none).
   */
  keysOf?: (item: I) => readonly string[];
  /**
   * Group commit: while a run is in flight, and for at most this long after it started, the calls that come meanwhile
   * wait and go together in the run after it, rather than each turn's calls in a run of their own. Under load that
   * makes fewer, larger runs (each a socket write, a wake-up of the server and one of this process); at a steady
   * rate a run is rarely in flight when the next call comes, so nobody waits. The bound keeps a stalled run from
   * holding the next batch for longer than that: the next batch then goes beside it.
   */
  holdWhileRunningMs?: number;
}

/**
 * The calls of one event-loop turn, run as one: the first call of a turn schedules the run (`setImmediate`), every
 * call of the same turn joins it, and each caller gets its own outcome. `run` gets the batch's items and returns one
 * outcome per item, in their order; if it throws, every caller of that batch gets the error.
 *
 * Hand-written because the stores' clients send each call on its own: a database statement (or Redis write) per
 * concurrent job, each a socket write and a wake-up of the server, where one multi-row statement does the same work.
 */
export class TurnBatch<I, O> {
  private pending: Waiting<I, O>[] = [];
  private running = 0;
  /** When the latest run began (performance.now()), for the hold's bound. */
  private lastStart = 0;
  /** A batch held behind a run in flight: released when a run settles, or by this timer at the bound. */
  private hold: NodeJS.Timeout | undefined;
  private readonly keysOf: (item: I) => readonly string[];
  private readonly holdMs: number;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    options: TurnBatchOptions<I> = {},
  ) {
    this.keysOf = options.keysOf ?? (() => []);
    this.holdMs = options.holdWhileRunningMs ?? 0;
  }

  call(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (this.pending.push({ item, resolve, reject }) === 1) setImmediate(() => this.due());
    });
  }

  /** The batch's turn is over: it runs now, or is held behind the run in flight. */
  private due(): void {
    if (this.hold || this.pending.length === 0) return;
    const heldFor = this.lastStart + this.holdMs - performance.now();
    if (this.running > 0 && heldFor > 0) {
      this.hold = setTimeout(() => this.release(), heldFor);
      return;
    }
    void this.flush();
  }

  private release(): void {
    clearTimeout(this.hold);
    this.hold = undefined;
    void this.flush();
  }

  private async flush(): Promise<void> {
    const batch: Waiting<I, O>[] = [];
    const later: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    for (const waiting of this.pending) {
      const own = this.keysOf(waiting.item);
      (own.some((key) => keys.has(key)) ? later : batch).push(waiting);
      for (const key of own) keys.add(key);
    }
    this.pending = later;
    if (later.length > 0) setImmediate(() => this.due());
    this.running++;
    this.lastStart = performance.now();
    try {
      const outcomes = await this.run(batch.map((waiting) => waiting.item));
      for (const [i, waiting] of batch.entries()) waiting.resolve(outcomes[i] as O);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    } finally {
      this.running--;
      if (this.hold) this.release();
    }
  }
}

interface Waiting<I, O> {
  item: I;
  resolve: (outcome: O) => void;
  reject: (error: unknown) => void;
}
