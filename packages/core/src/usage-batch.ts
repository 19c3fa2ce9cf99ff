import { warnUnlessAway } from "./outage-log.ts";
import type { Logger } from "./ports/telemetry.ts";
import type { UsageMeter } from "./ports/usage-meter.ts";

/**
 * A UsageMeter that adds in memory and writes its sums to the shared meter in one add per flush: counts no budget
 * is waiting on (the console's charts) cost the store nothing per answer. Counts stay exact cluster-wide, only late
 * by a flush. Reads see this instance's unflushed counts on top.
 */
export class UsageBatch implements UsageMeter {
  private pending = new Map<string, { by: number; ttlMs: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly meter: UsageMeter,
    private readonly logger: Logger,
  ) {}

  async add(counts: { key: string; by: number }[], ttlMs: number): Promise<void> {
    for (const { key, by } of counts) {
      const entry = this.pending.get(key);
      this.pending.set(key, { by: (entry?.by ?? 0) + by, ttlMs: Math.max(entry?.ttlMs ?? 0, ttlMs) });
    }
  }

  async read(keys: string[]): Promise<number[]> {
    const stored = await this.meter.read(keys);
    return keys.map((key, i) => (stored[i] ?? 0) + (this.pending.get(key)?.by ?? 0));
  }

  /** Flushes every `everyMs` until closed. */
  start(everyMs = 1000): this {
    this.timer ??= setInterval(
      () =>
        void this.flush().catch((err) =>
          warnUnlessAway(this.logger, err, {}, "could not write token usage; keeping it for the next flush"),
        ),
      everyMs,
    );
    this.timer.unref();
    return this;
  }

  /**
   * Writes the sums gathered so far, one add per key (atomic each, and on a cluster every key lives on its own node):
   * what could not be written is kept for the next flush. Rejects with the first error.
   */
  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    const written = await Promise.allSettled(
      [...batch].map(async ([key, { by, ttlMs }]) => {
        try {
          await this.meter.add([{ key, by }], ttlMs);
        } catch (error) {
          await this.add([{ key, by }], ttlMs);
          throw error;
        }
      }),
    );
    const failed = written.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
