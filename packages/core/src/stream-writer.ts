import { OutcomeUnknownError, RateLimitedError } from "./errors.ts";
import type { OutboundStreams } from "./ports/outbound-stream.ts";
import type { OutboundReply } from "./ports/platform-adapter.ts";
import type { Logger } from "./ports/telemetry.ts";
import type { Workspace } from "./ports/tenant-directory.ts";

export interface StreamWriterOptions<C> {
  streams: OutboundStreams<C>;
  workspace: Workspace<C>;
  /** The reply being streamed; its `text` is ignored. */
  reply: OutboundReply;
  /** Records the message's platform id before anything more is written to it (the reply ledger). */
  onStarted(messageId: string): Promise<unknown>;
  logger: Logger;
  now?: () => number;
}

/**
 * Feeds the LLM's text into one streamed platform message, batched: at most one write per `writeIntervalMs`, each at
 * most `maxChunkChars`; text that arrives meanwhile waits for the next write. The first write opens the message and
 * its id is recorded before the next one. A write the platform refuses (the stream expired, a refusal, a failure)
 * ends the streaming: the rest waits for `finish`, which completes the message by an update with the whole answer.
 */
export class StreamWriter<C> {
  private written = "";
  private pending = "";
  private messageId: string | undefined;
  /** Why streaming stopped before the answer was complete; the message is then completed by an update. */
  private broken: unknown;
  /** Why the opening may have opened a message whose id never came back: nothing else may be posted for it. */
  private unsure: OutcomeUnknownError | undefined;
  private notBefore = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private finishing = false;
  private readonly now: () => number;

  constructor(private readonly options: StreamWriterOptions<C>) {
    this.now = options.now ?? (() => performance.now());
  }

  /** The id of the message the stream opened, once its first write was answered. */
  get openedMessageId(): string | undefined {
    return this.messageId;
  }

  /** A message was opened, or may have been (its opening's outcome is unknown). Settled once `abandon` resolves. */
  get mayHaveOpened(): boolean {
    return this.messageId !== undefined || this.unsure !== undefined;
  }

  /** Takes the next piece of the LLM's text. Never throws: a failed write shows in `finish`. */
  readonly push = (delta: string): void => {
    if (this.finishing) return;
    this.pending += delta;
    this.schedule();
  };

  /**
   * Writes what is left and ends the stream, so that the message holds `text` (the complete, journaled answer).
   * Resolves to the message's id, or undefined when no message was opened (the caller then posts once). Rejects
   * with OutcomeUnknownError when the opening may have opened one: posting beside it could show the answer twice.
   */
  async finish(text: string): Promise<string | undefined> {
    this.finishing = true;
    clearTimeout(this.timer);
    await this.inFlight;
    const { streams, workspace, reply } = this.options;
    if (this.messageId === undefined) {
      if (this.unsure) throw this.unsure;
      return undefined;
    }
    const rest = text.startsWith(this.written) ? text.slice(this.written.length) : undefined;
    if (this.broken === undefined && rest !== undefined) {
      try {
        for (const chunk of chunks(rest, streams.maxChunkChars).slice(0, -1)) {
          await streams.append({ ...reply, text: chunk }, this.messageId, workspace);
        }
        await streams.stop(
          { ...reply, text: chunks(rest, streams.maxChunkChars).at(-1) ?? "" },
          this.messageId,
          workspace,
        );
        return this.messageId;
      } catch (error) {
        this.broken = error;
      }
    }
    this.options.logger.info(
      { workspaceId: workspace.id, reason: describe(this.broken) },
      "the stream ended before the answer did; completing its message by an update",
    );
    await streams.complete({ ...reply, text }, this.messageId, workspace);
    return this.messageId;
  }

  /**
   * Writes nothing more: the answer failed, and whoever retries it completes the message. Resolves once a write in
   * flight has landed (an opening then recorded), so that the retry finds the message.
   */
  async abandon(): Promise<void> {
    this.finishing = true;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private schedule(): void {
    if (this.inFlight || this.timer || this.broken !== undefined || this.pending === "") return;
    const wait = this.notBefore - this.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.schedule();
      }, wait);
      return;
    }
    this.inFlight = this.write().finally(() => {
      this.inFlight = undefined;
      if (!this.finishing) this.schedule();
    });
  }

  private async write(): Promise<void> {
    const { streams, workspace, reply } = this.options;
    const chunk = this.pending.slice(0, streams.maxChunkChars);
    this.notBefore = this.now() + streams.writeIntervalMs;
    try {
      if (this.messageId === undefined) {
        const { messageId } = await streams.start({ ...reply, text: chunk }, workspace);
        this.messageId = messageId;
        await this.options.onStarted(messageId);
      } else {
        await streams.append({ ...reply, text: chunk }, this.messageId, workspace);
      }
      this.written += chunk;
      this.pending = this.pending.slice(chunk.length);
    } catch (error) {
      // A 429 posted nothing: the text waits for a later write. An opening that failed leaves no message, unless
      // its outcome is unknown.
      if (error instanceof RateLimitedError) this.notBefore = this.now() + error.retryAfterMs;
      else if (this.messageId !== undefined) this.broken = error;
      else {
        this.finishing = true;
        if (error instanceof OutcomeUnknownError) this.unsure = error;
      }
      if (!(error instanceof RateLimitedError)) this.logWriteFailure(error);
    }
  }

  private logWriteFailure(error: unknown): void {
    this.options.logger.warn(
      { workspaceId: this.options.workspace.id, reason: describe(error), opened: this.messageId !== undefined },
      "a streamed write failed; the answer will be completed in one write",
    );
  }
}

/** `text` in pieces of at most `size` characters; an empty text is one empty piece. */
function chunks(text: string, size: number): string[] {
  if (text === "") return [""];
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
