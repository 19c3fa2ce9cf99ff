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

export interface LeaseKeeperOptions {
  now?: () => number;
}

interface Held {
  key: string;
  token: string;
  heldFrom: number;
  controller: AbortController;
}

/**
 * Renews the claims it holds every third of a lease while work runs, all of them on one tick: their renewals go out
 * in one event-loop turn, which a store batches (one statement on PostgreSQL for every job in flight, not one per job).
 * A renewal that finds the claim gone aborts its signal. A renewal that cannot reach the store is tried again next
 * tick — but the holder does not wait for the store to answer: by its own clock, the lease runs from the moment its
 * last successful renewal was *sent* (the store counts it from later, when it arrives), and the signal is aborted a
 * sixth of a lease before that runs out. So a holder cut off from its store stops before anyone else can take the
 * claim over.
 */
export class LeaseKeeper {
  private readonly now: () => number;
  private readonly held = new Set<Held>();
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly store: ClaimStore,
    private readonly leaseMs: number,
    options: LeaseKeeperOptions = {},
  ) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Holds the claim on `key` taken with `token`; `since`: when the claim was sent (on `now`'s clock). */
  hold(key: string, token: string, since?: number): HeldLease {
    const lease: Held = { key, token, heldFrom: since ?? this.now(), controller: new AbortController() };
    this.held.add(lease);
    if (this.timers.length === 0) this.start();
    return {
      signal: lease.controller.signal,
      assertHeld: () => {
        this.check(lease);
        lease.controller.signal.throwIfAborted();
      },
      stop: () => {
        this.held.delete(lease);
        if (this.held.size === 0) this.halt();
      },
    };
  }

  private start(): void {
    this.timers = [
      setInterval(() => this.renewAll(), this.leaseMs / 3),
      setInterval(() => this.checkAll(), Math.max(10, this.leaseMs / 12)),
    ];
    for (const timer of this.timers) timer.unref();
  }

  private halt(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  private renewAll(): void {
    const sentAt = this.now();
    for (const lease of this.held) {
      this.store.extend(lease.key, lease.token, this.leaseMs).then(
        (held) => {
          if (held) lease.heldFrom = Math.max(lease.heldFrom, sentAt);
          else lose(lease, "was lost");
        },
        () => {},
      );
    }
  }

  private checkAll(): void {
    for (const lease of this.held) this.check(lease);
  }

  private check(lease: Held): void {
    if (this.now() - lease.heldFrom >= (this.leaseMs * 5) / 6)
      lose(lease, "could not be renewed in time; it may lapse");
  }
}

function lose(lease: Held, why: string): void {
  if (!lease.controller.signal.aborted) lease.controller.abort(new LeaseLostError(`lease on ${lease.key} ${why}`));
}
