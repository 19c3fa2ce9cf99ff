import { RateLimitedError, type RateLimiter, type ThreadMessage } from "@resident/core";
import { WebAPIRateLimitedError } from "@slack/web-api";
import { z } from "zod";
import type { BotCall } from "./bot-calls.ts";

export interface ThreadReadLimits {
  /** conversations.replies calls per minute per workspace, across the cluster. */
  readsPerMinute: number;
  /** Messages one call asks for. */
  pageSize: number;
}

/**
 * Slack's limits on conversations.replies since 2025 for apps distributed outside the Marketplace: one call a minute
 * per workspace, 15 messages a call. Internal and Marketplace apps may raise them (SLACK_THREAD_READS_PER_MINUTE).
 */
export const distributedAppLimits: ThreadReadLimits = { readsPerMinute: 1, pageSize: 15 };

const repliesSchema = z.object({
  messages: z
    .array(
      z.object({
        ts: z.string(),
        user: z.string().optional(),
        bot_id: z.string().optional(),
        username: z.string().optional(),
        text: z.string().optional(),
      }),
    )
    .default([]),
});

/**
 * One conversations.replies call: the thread from its root, oldest first, within the workspace's shared window. A
 * thread longer than a page is read from its start, which holds what the thread is about.
 */
export async function readThread(
  call: BotCall,
  limiter: RateLimiter,
  limits: ThreadReadLimits,
  scope: string,
  channel: string,
  threadTs: string,
  limit: number,
): Promise<ThreadMessage[]> {
  const wait = await limiter.take([
    { key: `slack:{${scope}}:conversations.replies`, limit: limits.readsPerMinute, windowMs: 60_000 },
  ]);
  if (wait > 0) throw new RateLimitedError(wait, "the workspace's conversations.replies window is full");
  let answer: unknown;
  try {
    answer = await call((client) =>
      client.conversations.replies({ channel, ts: threadTs, limit: Math.min(limit, limits.pageSize) }),
    );
  } catch (error) {
    if (error instanceof WebAPIRateLimitedError) throw new RateLimitedError(error.retryAfter * 1000);
    throw error;
  }
  return repliesSchema.parse(answer).messages.map((message) => ({
    id: message.ts,
    author: message.user ?? message.username ?? message.bot_id ?? "someone",
    isBot: message.bot_id !== undefined,
    text: message.text ?? "",
  }));
}
