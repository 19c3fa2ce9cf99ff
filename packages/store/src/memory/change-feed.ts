import { EventEmitter } from "node:events";
import type { ChangeFeed } from "@resident/core";

/** The change feed within one process. */
export class MemoryChangeFeed implements ChangeFeed {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(workspaceId: string): Promise<void> {
    this.emitter.emit("change", workspaceId);
  }

  subscribe(listener: (workspaceId: string) => void): () => void {
    this.emitter.on("change", listener);
    return () => this.emitter.off("change", listener);
  }
}
