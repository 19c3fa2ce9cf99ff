import { LeaseLostError } from "./errors.ts";
import type { ClaimStore } from "./ports/claim-store.ts";

export interface HeldLease {
  /** Aborted when the lease is lost, or may lapse unseen: whoever holds the signal must stop before committing. */
  readonly signal: AbortSignal;
  /**
   * Throws the signal's reason when the lease is lost, or may lapse, by the holder's clock now: the check before a
   * post. The watchdog runs on a timer, which a busy or paused process runs late.
   */
  assertHeld(): void;
  stop(): void;
}

export interface HoldOptions {
  now?: () => number;
  /** When the claim was sent (on `now`'s clock): the store counts the lease from later, when it arrives. */
  since?: number;
}

/**
 * Renews a claim's lease every third of its length while work runs. A renewal that finds the claim gone aborts
 * the signal. A renewal that cannot reach the store is tried again next tick — but the holder does not wait for
 * the store to answer: by its own clock, the lease runs from the moment its last successful renewal was *sent*
 * (the store counts it from later, when it arrives), and the signal is aborted a sixth of a lease before that
 * runs out. So a holder cut off from its store stops before anyone else can take the claim over.
 */
export function holdLease(
  store: ClaimStore,
  key: string,
  token: string,
  leaseMs: number,
  options: HoldOptions = {},
): HeldLease {
  const now = options.now ?? (() => performance.now());
  const controller = new AbortController();
  const lose = (why: string) => {
    if (!controller.signal.aborted) controller.abort(new LeaseLostError(`lease on ${key} ${why}`));
  };
  let heldFrom = options.since ?? now();
  const renew = () => {
    const sentAt = now();
    store.extend(key, token, leaseMs).then(
      (held) => {
        if (held) heldFrom = Math.max(heldFrom, sentAt);
        else lose("was lost");
      },
      () => {},
    );
  };
  const check = () => {
    if (now() - heldFrom >= (leaseMs * 5) / 6) lose("could not be renewed in time; it may lapse");
  };
  const renewer = setInterval(renew, leaseMs / 3);
  const watchdog = setInterval(check, Math.max(10, leaseMs / 12));
  renewer.unref();
  watchdog.unref();
  return {
    signal: controller.signal,
    assertHeld: () => {
      check();
      controller.signal.throwIfAborted();
    },
    stop: () => {
      clearInterval(renewer);
      clearInterval(watchdog);
    },
  };
}
