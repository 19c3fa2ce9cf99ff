import { isStoreAway } from "./errors.ts";

export interface StoreHealthOptions {
  /** How often the store is probed. Default 500 ms. */
  probeIntervalMs?: number;
  /** A probe unanswered this long failed, whatever the socket says (a frozen store keeps it open). Default 1000 ms. */
  probeTimeoutMs?: number;
  /** Failed probes in a row that make an outage. Default 2. */
  probesToTrip?: number;
  /** Calls in a row that failed for want of the store (none succeeding between) that make an outage. Default 5. */
  callsToTrip?: number;
  /** Answered probes in a row that end one. Default 2. */
  probesToRecover?: number;
  /** Told of every change, for the log. */
  onChange?: (up: boolean, reason: string) => void;
}

/**
 * Whether a store is up, as the callers that must not wait on it should see it: a circuit breaker fed by a probe of
 * its own (Redis' PING, PostgreSQL's `select 1`) and by the outcomes of real calls (a call answered within the
 * interval stands in for its probe). Down, the store's callers reject at once, without a round trip; probes go on,
 * and the breaker closes by itself once the store answers again.
 *
 * Neither sticky nor flappy: one slow or failed call (a busy store) is not an outage, only a run of them with no
 * success between, or probes unanswered within their own timeout — which catches a frozen store or a cut network
 * (their sockets stay open and never answer) as surely as a refused connection. Coming back takes probes answered in
 * a row.
 */
export class StoreHealth {
  private state: "up" | "down" = "up";
  private failedCalls = 0;
  private lastSuccessAt = Number.NEGATIVE_INFINITY;
  private failedProbes = 0;
  private answeredProbes = 0;
  private probing = false;
  private readonly timer: NodeJS.Timeout;
  private readonly options: Required<Omit<StoreHealthOptions, "onChange">> & Pick<StoreHealthOptions, "onChange">;

  /** `probe` resolves once the store answered; rejects (or never settles) when it did not. */
  constructor(
    private readonly probe: () => Promise<unknown>,
    options: StoreHealthOptions = {},
  ) {
    this.options = {
      probeIntervalMs: 500,
      probeTimeoutMs: 1000,
      probesToTrip: 2,
      callsToTrip: 5,
      probesToRecover: 2,
      ...options,
    };
    this.timer = setInterval(() => void this.tick(), this.options.probeIntervalMs);
    this.timer.unref();
  }

  get up(): boolean {
    return this.state === "up";
  }

  /**
   * One call to the store through the breaker: while it is open, rejects at once with `whenDown`'s error, without
   * calling; otherwise tells it how the call went — failed for want of the store when it threw an error `isStoreAway`
   * names, answered otherwise (a refusal of the store's own is an answer).
   */
  async call<T>(run: () => Promise<T>, whenDown: () => Error): Promise<T> {
    if (this.state === "down") throw whenDown();
    try {
      const result = await run();
      this.callSucceeded();
      return result;
    } catch (error) {
      if (isStoreAway(error)) this.callFailed();
      else this.callSucceeded();
      throw error;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }

  private callSucceeded(): void {
    this.failedCalls = 0;
    this.lastSuccessAt = performance.now();
  }

  /** A call failed for want of the store; probes it at once rather than waiting for the next tick. */
  private callFailed(): void {
    if (++this.failedCalls >= this.options.callsToTrip) this.trip("calls kept failing");
    void this.check();
  }

  /** A call answered since the last tick already said what a probe would: under traffic, no probes. */
  private tick(): Promise<void> {
    const answeredLately = performance.now() - this.lastSuccessAt < this.options.probeIntervalMs;
    return this.state === "up" && answeredLately ? Promise.resolve() : this.check();
  }

  private async check(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    const answered = await withinTimeout(this.probe, this.options.probeTimeoutMs);
    this.probing = false;
    if (answered) {
      this.failedProbes = 0;
      if (this.state === "down" && ++this.answeredProbes >= this.options.probesToRecover) {
        this.state = "up";
        this.failedCalls = 0;
        this.options.onChange?.(true, "probe answered again");
      }
    } else {
      this.answeredProbes = 0;
      if (++this.failedProbes >= this.options.probesToTrip) this.trip("probe unanswered");
    }
  }

  private trip(reason: string): void {
    this.answeredProbes = 0;
    if (this.state === "down") return;
    this.state = "down";
    this.options.onChange?.(false, reason);
  }
}

function withinTimeout(probe: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answered = probe().then(
    () => true,
    () => false,
  );
  return Promise.race([answered, timedOut]).finally(() => clearTimeout(timer));
}
