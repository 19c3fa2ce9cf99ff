import type { RedisClient } from "./connection.ts";

export interface RedisHealthOptions {
  /** How often Redis is asked PING. Default 500 ms. */
  probeIntervalMs?: number;
  /** A PING unanswered this long failed, whatever the socket says (a frozen Redis keeps it open). Default 1000 ms. */
  probeTimeoutMs?: number;
  /** Failed PINGs in a row that make an outage. Default 2. */
  probesToTrip?: number;
  /** Commands in a row that failed for want of Redis (none succeeding between) that make an outage. Default 5. */
  commandsToTrip?: number;
  /** Answered PINGs in a row that end one. Default 2. */
  probesToRecover?: number;
  /** Told of every change, for the log. */
  onChange?: (up: boolean, reason: string) => void;
}

/**
 * Whether Redis is up, as the ack path should see it: a circuit breaker fed by a PING of its own and by the
 * outcomes of real commands (a command answered within the interval stands in for its PING). Down, every command of
 * the fail-fast parts rejects at once, without a round trip, and deliveries go to the PostgreSQL lane; PINGs go on,
 * and the breaker closes by itself once Redis answers again.
 *
 * Neither sticky nor flappy: one slow or failed command (a busy Redis) is not an outage, only a run of them with
 * no success between, or PINGs unanswered within their own timeout — which catches a frozen Redis (SIGSTOP: its
 * sockets accept and never answer) as surely as a refused connection. Coming back takes PINGs answered in a row.
 */
export class RedisHealth {
  private state: "up" | "down" = "up";
  private failedCommands = 0;
  private lastSuccessAt = Number.NEGATIVE_INFINITY;
  private failedProbes = 0;
  private answeredProbes = 0;
  private probing = false;
  private readonly timer: NodeJS.Timeout;
  private readonly options: Required<Omit<RedisHealthOptions, "onChange">> & Pick<RedisHealthOptions, "onChange">;

  constructor(
    private readonly client: RedisClient,
    options: RedisHealthOptions = {},
  ) {
    this.options = {
      probeIntervalMs: 500,
      probeTimeoutMs: 1000,
      probesToTrip: 2,
      commandsToTrip: 5,
      probesToRecover: 2,
      ...options,
    };
    this.timer = setInterval(() => void this.tick(), this.options.probeIntervalMs);
    this.timer.unref();
  }

  get up(): boolean {
    return this.state === "up";
  }

  commandSucceeded(): void {
    this.failedCommands = 0;
    this.lastSuccessAt = performance.now();
  }

  /** A command failed for want of Redis; asks Redis at once rather than waiting for the next tick. */
  commandFailed(): void {
    if (++this.failedCommands >= this.options.commandsToTrip) this.trip("commands kept failing");
    void this.probe();
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** A command answered since the last tick already said what a PING would: under traffic, no PINGs. */
  private tick(): Promise<void> {
    const answeredLately = performance.now() - this.lastSuccessAt < this.options.probeIntervalMs;
    return this.state === "up" && answeredLately ? Promise.resolve() : this.probe();
  }

  private async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    const answered = await ping(this.client, this.options.probeTimeoutMs);
    this.probing = false;
    if (answered) {
      this.failedProbes = 0;
      if (this.state === "down" && ++this.answeredProbes >= this.options.probesToRecover) {
        this.state = "up";
        this.failedCommands = 0;
        this.options.onChange?.(true, "PING answered again");
      }
    } else {
      this.answeredProbes = 0;
      if (++this.failedProbes >= this.options.probesToTrip) this.trip("PING unanswered");
    }
  }

  private trip(reason: string): void {
    this.answeredProbes = 0;
    if (this.state === "down") return;
    this.state = "down";
    this.options.onChange?.(false, reason);
  }
}

function ping(client: RedisClient, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answered = client.ping().then(
    (reply) => reply === "PONG",
    () => false,
  );
  return Promise.race([answered, timedOut]).finally(() => clearTimeout(timer));
}
