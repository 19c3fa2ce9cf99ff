import type { OutboundReply } from "./platform-adapter.ts";
import type { Workspace } from "./tenant-directory.ts";

/**
 * What the platform shows while an answer is being written (an assistant's status, a typing indicator), shown
 * before the agent runs and cleared once the answer is sent or has failed. Best effort: a failure here never fails
 * the answer. `reply.text` is the user's question.
 */
export interface WorkingIndicator<C = unknown> {
  show(reply: OutboundReply, workspace: Workspace<C>, context: { firstInThread: boolean }): Promise<void>;
  clear(reply: OutboundReply, workspace: Workspace<C>): Promise<void>;
}
