import { setTimeout as sleep } from "node:timers/promises";
import { OutcomeUnknownError, RateLimitedError, SendRejectedError } from "./errors.ts";
import type { OutboundReply, PlatformAdapter, SentReply } from "./ports/platform-adapter.ts";
import type { Workspace } from "./ports/tenant-directory.ts";
import { inSpan } from "./tracing.ts";

export type Delivery = { status: "sent"; messageId: string } | { status: "unknown" };

export interface OutboundSenderOptions {
  /**
   * How long one send may spend waiting out 429s before giving the job back to the queue. A time budget, not a
   * count: when a shared room window frees one slot, every waiter but one is told to wait a few ms more.
   */
  rateLimitBudgetMs: number;
  /** Attempts at reading the platform back. */
  reconcileAttempts: number;
  /** Time given to a slow post to land before reading back after a timeout, so a late post is not taken for lost. */
  reconcileDelayMs: number;
}

export const defaultSenderOptions: OutboundSenderOptions = {
  rateLimitBudgetMs: 120_000,
  reconcileAttempts: 3,
  reconcileDelayMs: 3_000,
};

/** What reading the platform back found: our reply, certainly nothing, or no way to tell. */
type ReadBack = SentReply | "absent" | "unreadable";

/**
 * Sends one reply at most once per attempt. A 429 posted nothing, so it is waited out (with jitter) and retried.
 * A timeout or 5xx may have posted, so the platform is read back first; where it cannot be read back, nothing is
 * resent. Throws OutcomeUnknownError when it may have posted but could not read back before its lease ran out;
 * anything else it throws means the message was certainly not posted.
 */
export class OutboundSender {
  constructor(
    private readonly options: OutboundSenderOptions = defaultSenderOptions,
    private readonly random: () => number = Math.random,
  ) {}

  async send<C>(
    adapter: PlatformAdapter<C>,
    workspace: Workspace<C>,
    reply: OutboundReply,
    signal: AbortSignal,
  ): Promise<Delivery> {
    const deadline = performance.now() + this.options.rateLimitBudgetMs;
    for (;;) {
      try {
        const sent = await adapter.send(reply, workspace);
        return { status: "sent", messageId: sent.messageId };
      } catch (error) {
        if (error instanceof OutcomeUnknownError) return this.reconcile(adapter, workspace, reply, signal, error);
        if (!(error instanceof RateLimitedError)) throw error;
        const wait = error.retryAfterMs + this.random() * Math.min(1_000, error.retryAfterMs + 100);
        if (performance.now() + wait > deadline) throw error;
        await sleep(wait, undefined, { signal });
      }
    }
  }

  /** Sends a reply that an earlier holder of its claim began to post before it died: looks on the platform first. */
  async resume<C>(
    adapter: PlatformAdapter<C>,
    workspace: Workspace<C>,
    reply: OutboundReply,
    signal: AbortSignal,
  ): Promise<Delivery> {
    const found = await this.readBack(adapter, workspace, reply);
    if (found === "unreadable") return { status: "unknown" };
    if (found !== "absent") return { status: "sent", messageId: found.messageId };
    return this.send(adapter, workspace, reply, signal);
  }

  private async reconcile<C>(
    adapter: PlatformAdapter<C>,
    workspace: Workspace<C>,
    reply: OutboundReply,
    signal: AbortSignal,
    cause: OutcomeUnknownError,
  ): Promise<Delivery> {
    if (!adapter.findReply) return { status: "unknown" };
    // Cut short (the lease is lost), the outcome stays unknown: the caller must leave the sending mark, so that
    // whoever takes the claim next reads the platform back before posting.
    await sleep(this.options.reconcileDelayMs, undefined, { signal }).catch(() => {
      throw cause;
    });
    const found = await this.readBack(adapter, workspace, reply);
    if (found === "unreadable") return { status: "unknown" };
    if (found !== "absent") return { status: "sent", messageId: found.messageId };
    throw new SendRejectedError("the reply is not on the platform after an unknown outcome", { cause });
  }

  private readBack<C>(adapter: PlatformAdapter<C>, workspace: Workspace<C>, reply: OutboundReply): Promise<ReadBack> {
    return inSpan("reconcile", {}, async (span) => {
      const found = await this.findReply(adapter, workspace, reply);
      span.setAttribute("resident.reconcile.found", typeof found === "string" ? found : "sent");
      return found;
    });
  }

  private async findReply<C>(
    adapter: PlatformAdapter<C>,
    workspace: Workspace<C>,
    reply: OutboundReply,
  ): Promise<ReadBack> {
    if (!adapter.findReply) return "unreadable";
    for (let attempt = 1; attempt <= this.options.reconcileAttempts; attempt++) {
      try {
        return (await adapter.findReply(reply, workspace)) ?? "absent";
      } catch {
        if (attempt < this.options.reconcileAttempts) await sleep(250 * attempt);
      }
    }
    return "unreadable";
  }
}
