import type { ChangeFeed } from "@resident/core";
import type { RedisClient } from "./connection.ts";
import { storeCall } from "./store-call.ts";

export interface RedisChangeFeedOptions {
  /** The pub/sub channel, shared by every instance. Default `rsd:workspace-changed`. */
  channel?: string;
  /** A listener that threw (the others still hear the change), or a failed (un)subscribe. Default: ignored. */
  onError?: (error: unknown) => void;
}

/**
 * ChangeFeed over Redis pub/sub. Publishing goes through a fail-fast connection; listening needs a connection of
 * its own (the `subscriber` role), which ioredis subscribes again after every reconnect. A change published
 * while an instance is disconnected is lost to it, as the port allows: caches also expire on their own.
 */
export class RedisChangeFeed implements ChangeFeed {
  private readonly channel: string;
  private readonly listeners = new Set<(workspaceId: string) => void>();
  private readonly onError: (error: unknown) => void;

  constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
    options: RedisChangeFeedOptions = {},
  ) {
    this.channel = options.channel ?? "rsd:workspace-changed";
    this.onError = options.onError ?? (() => {});
    subscriber.on("message", (channel: string, workspaceId: string) => {
      if (channel === this.channel) this.deliver(workspaceId);
    });
  }

  publish(workspaceId: string): Promise<void> {
    return storeCall("publish", async () => {
      await this.publisher.publish(this.channel, workspaceId);
    });
  }

  subscribe(listener: (workspaceId: string) => void): () => void {
    if (this.listeners.size === 0) this.subscriber.subscribe(this.channel).catch(this.onError);
    this.listeners.add(listener);
    return () => {
      if (this.listeners.delete(listener) && this.listeners.size === 0)
        this.subscriber.unsubscribe(this.channel).catch(this.onError);
    };
  }

  private deliver(workspaceId: string): void {
    for (const listener of this.listeners) {
      try {
        listener(workspaceId);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
