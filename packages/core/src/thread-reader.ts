import { type QueuedEvent, startsThread } from "./chat-event.ts";
import { RateLimitedError, StoreUnavailableError } from "./errors.ts";
import type { PlatformAdapter } from "./ports/platform-adapter.ts";
import type { SharedCache } from "./ports/shared-cache.ts";
import type { Logger } from "./ports/telemetry.ts";
import type { Workspace } from "./ports/tenant-directory.ts";
import { boundedMessages, type ThreadContext, type ThreadMessage } from "./thread-context.ts";

export interface ThreadReaderOptions {
  cache: SharedCache;
  logger: Logger;
  /** The estimated tokens the context may take. Default 2,000. */
  maxTokens?: number;
  /** Messages asked of the platform. Default 50. */
  maxMessages?: number;
  /** How long a thread read is reused, by retries and by other mentions in the thread. Default 60 s. */
  cacheTtlMs?: number;
}

/** The shortest hold after a 429, so that a Retry-After of 0 cannot make every instance ask again at once. */
const minimumCooldownMs = 1_000;

/**
 * Reads the thread or room the agent was called into, through the adapter's optional `threadMessages`, bounded in
 * tokens and cached in the shared store. A platform's 429 holds every instance off the workspace's thread reads
 * until its Retry-After (a key in the shared cache). Whatever fails, the answer goes on: the context then says why
 * it is missing, and the agent says so in the prompt.
 */
export class ThreadReader {
  private readonly maxTokens: number;
  private readonly maxMessages: number;
  private readonly cacheTtlMs: number;

  constructor(private readonly options: ThreadReaderOptions) {
    this.maxTokens = options.maxTokens ?? 2_000;
    this.maxMessages = options.maxMessages ?? 50;
    this.cacheTtlMs = options.cacheTtlMs ?? 60_000;
  }

  /**
   * What the delivery carried of its thread, if anything; else the thread read from the platform. Undefined where
   * there is nothing earlier to read: the platform cannot, or the message starts its thread.
   */
  async read(event: QueuedEvent, workspace: Workspace, adapter: PlatformAdapter): Promise<ThreadContext | undefined> {
    const { conversation } = event;
    if (event.context?.length) return { status: "read", ...boundedMessages(event.context, this.maxTokens) };
    if (!adapter.threadMessages || startsThread(conversation)) return undefined;
    const listed = await this.listed(event, workspace, adapter);
    if (!Array.isArray(listed)) return listed;
    const current = listed.findIndex((message) => message.id === conversation.replyToId);
    const earlier = current === -1 ? listed : listed.slice(0, current);
    if (earlier.length === 0) return undefined;
    return { status: "read", ...boundedMessages(earlier, this.maxTokens) };
  }

  private async listed(
    event: QueuedEvent,
    workspace: Workspace,
    adapter: PlatformAdapter,
  ): Promise<ThreadMessage[] | ThreadContext> {
    const { cache, logger } = this.options;
    const key = threadKey(event);
    const cooldown = cooldownKey(event);
    const [cached, held] = await Promise.all([this.cached(key), this.cached(cooldown)]);
    if (cached !== undefined) return JSON.parse(cached) as ThreadMessage[];
    if (held !== undefined) return { status: "unavailable", reason: "the platform asked us to slow down" };
    let messages: ThreadMessage[];
    try {
      messages = await (adapter.threadMessages as NonNullable<PlatformAdapter["threadMessages"]>)(
        event,
        workspace,
        this.maxMessages,
      );
    } catch (error) {
      if (error instanceof RateLimitedError) {
        const holdMs = Math.max(error.retryAfterMs, minimumCooldownMs);
        await cache.set(cooldown, String(Date.now() + holdMs), holdMs).catch(() => {});
        logger.info(
          { workspaceId: event.workspaceId, retryAfterMs: holdMs },
          "thread read rate limited; answering without it",
        );
        return { status: "unavailable", reason: "the platform's rate limit" };
      }
      logger.warn({ err: error, workspaceId: event.workspaceId }, "could not read the thread; answering without it");
      return { status: "unavailable", reason: "the platform could not be read" };
    }
    await cache.set(key, JSON.stringify(messages), this.cacheTtlMs).catch(() => {});
    return messages;
  }

  /** A cache that cannot be reached is a cache that missed. */
  private cached(key: string): Promise<string | undefined> {
    return this.options.cache.get(key).catch((error: unknown) => {
      if (error instanceof StoreUnavailableError) return undefined;
      throw error;
    });
  }
}

function threadKey(event: QueuedEvent): string {
  const { id, threadId } = event.conversation;
  return `thread:${event.workspaceId}:${id}:${threadId ?? ""}`;
}

function cooldownKey(event: QueuedEvent): string {
  return `thread-cooldown:${event.workspaceId}`;
}
