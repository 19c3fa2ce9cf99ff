import { setTimeout as sleep } from "node:timers/promises";
import { OutcomeUnknownError, RateLimitedError, SendRejectedError } from "./errors.ts";
import type { OutboundReply, PlatformAdapter, SentReply } from "./ports/platform-adapter.ts";
import type { Workspace } from "./ports/tenant-directory.ts";

export type Delivery = { status: "sent"; messageId: string } | { status: "unknown" };

export interface OutboundSenderOptions {
  /** How many 429s one send waits out before giving the job back to the queue. */
  maxRateLimitWaits: number;
  /** A Retry-After longer than this gives the job back to the queue instead of waiting in hand. */
  maxRateLimitWaitMs: number;
  /** Attempts at reading the platform back after an unknown outcome. */
  reconcileAttempts: number;
  /** Time given to a slow post to land before the first read-back, so a late post is not taken for a lost one. */
  reconcileDelayMs: number;
}

export const defaultSenderOptions: OutboundSenderOptions = {
  maxRateLimitWaits: 5,
  maxRateLimitWaitMs: 60_000,
  reconcileAttempts: 3,
  reconcileDelayMs: 3_000,
};

/**
 * Sends one reply at most once per attempt. A 429 posted nothing, so it is waited out and retried. A timeout or
 * 5xx may have posted, so the platform is read back first; where it cannot be read back, nothing is resent.
 * Throws only when the message was certainly not posted.
 */
export class OutboundSender {
  constructor(private readonly options: OutboundSenderOptions = defaultSenderOptions) {}

  async send<C>(
    adapter: PlatformAdapter<C>,
    workspace: Workspace<C>,
    reply: OutboundReply,
    signal: AbortSignal,
  ): Promise<Delivery> {
    for (let waits = 0; ; waits++) {
      try {
        const sent = await adapter.send(reply, workspace);
        return { status: "sent", messageId: sent.messageId };
      } catch (error) {
        if (error instanceof RateLimitedError && this.mayWait(error, waits)) {
          await sleep(error.retryAfterMs, undefined, { signal });
          continue;
        }
        if (error instanceof OutcomeUnknownError) return this.reconcile(adapter, workspace, reply, error);
        throw error;
      }
    }
  }

  private mayWait(error: RateLimitedError, waits: number): boolean {
    return waits < this.options.maxRateLimitWaits && error.retryAfterMs <= this.options.maxRateLimitWaitMs;
  }

  private async reconcile<C>(
    adapter: PlatformAdapter<C>,
    workspace: Workspace<C>,
    reply: OutboundReply,
    cause: OutcomeUnknownError,
  ): Promise<Delivery> {
    if (!adapter.findReply) return { status: "unknown" };
    await sleep(this.options.reconcileDelayMs);
    for (let attempt = 1; attempt <= this.options.reconcileAttempts; attempt++) {
      let found: SentReply | undefined;
      try {
        found = await adapter.findReply(reply, workspace);
      } catch {
        await sleep(250 * attempt);
        continue;
      }
      if (found) return { status: "sent", messageId: found.messageId };
      throw new SendRejectedError("the reply is not on the platform after an unknown outcome", { cause });
    }
    return { status: "unknown" };
  }
}
