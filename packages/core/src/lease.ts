import { LeaseLostError } from "./errors.ts";
import type { ClaimStore } from "./ports/claim-store.ts";

export interface HeldLease {
  /** Aborted when the lease could not be renewed: whoever holds the signal must stop before committing. */
  readonly signal: AbortSignal;
  stop(): void;
}

/**
 * Renews a claim's lease every third of its length while work runs. A renewal that finds the claim gone aborts
 * the signal; a renewal that cannot reach the store is tried again next tick, since the lease has time left.
 */
export function holdLease(store: ClaimStore, key: string, token: string, leaseMs: number): HeldLease {
  const controller = new AbortController();
  const timer = setInterval(() => {
    store.extend(key, token, leaseMs).then(
      (held) => {
        if (!held) controller.abort(new LeaseLostError(`lease on ${key} was lost`));
      },
      () => {},
    );
  }, leaseMs / 3);
  timer.unref();
  return {
    signal: controller.signal,
    stop: () => clearInterval(timer),
  };
}
