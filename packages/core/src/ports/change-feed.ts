/**
 * Tells every instance that a workspace changed, so caches drop it at once (Redis pub/sub across instances,
 * an in-process emitter for one). Delivery is best effort; caches also expire on their own.
 */
export interface ChangeFeed {
  publish(workspaceId: string): Promise<void>;
  subscribe(listener: (workspaceId: string) => void): () => void;
}
