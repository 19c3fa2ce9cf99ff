import type { OutboundReply, SentReply } from "./platform-adapter.ts";
import type { Workspace } from "./tenant-directory.ts";

/** The reply being streamed: where it goes and its ledger key; `text` is what one write carries. */
export type StreamWrite = OutboundReply;

/**
 * A platform's streamed messages: one message opened by its first write, fed while the LLM writes, then finished.
 * Writes throw as `PlatformAdapter.send` does; an append or a stop that finds the stream closed (expired, refused)
 * throws StreamEndedError, and the answer is then completed with `complete`.
 */
export interface OutboundStreams<C = unknown> {
  /** Least time between two writes to one message, inside the platform's rate limits. */
  readonly writeIntervalMs: number;
  /** Most characters one write may carry. */
  readonly maxChunkChars: number;
  /** Whether this conversation takes a stream; where it does not, the answer is posted once, as without streaming. */
  accepts(reply: OutboundReply, workspace: Workspace<C>): boolean;
  /** The first write: opens the message with `text` and resolves to its platform id. */
  start(write: StreamWrite, workspace: Workspace<C>): Promise<SentReply>;
  append(write: StreamWrite, messageId: string, workspace: Workspace<C>): Promise<void>;
  /** Ends the stream with `text` as its last part, the message stamped so that it can be found again. */
  stop(write: StreamWrite, messageId: string, workspace: Workspace<C>): Promise<void>;
  /**
   * Looks on the platform for a message `start` opened for this reply whose id was never recorded (its opener died
   * in between). Throws when it cannot look; undefined when there is none. Leave it out only where a stream that
   * never got its final write is no message the user keeps (it lapses): a takeover then opens a new stream.
   */
  findOpened?(reply: OutboundReply, workspace: Workspace<C>): Promise<SentReply | undefined>;
  /**
   * Ends the stream if it is still open and makes `text` (the complete answer) the message's whole text: after a
   * takeover, an expired stream or a refused write. Safe to repeat.
   */
  complete(write: StreamWrite, messageId: string, workspace: Workspace<C>): Promise<void>;
}
