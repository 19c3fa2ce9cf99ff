import { SpanKind, trace } from "@opentelemetry/api";
import type { QueuedEvent } from "./chat-event.ts";
import { replyKey } from "./keys.ts";
import type { HeldLease } from "./lease.ts";
import type { Delivery, OutboundSender } from "./outbound-sender.ts";
import type { OutboundStreams } from "./ports/outbound-stream.ts";
import type { OutboundReply, PlatformAdapter } from "./ports/platform-adapter.ts";
import type { Logger } from "./ports/telemetry.ts";
import type { Workspace } from "./ports/tenant-directory.ts";
import type { ReplyLedger, SendStart } from "./reply-ledger.ts";
import { StreamWriter } from "./stream-writer.ts";
import { inSpan } from "./tracing.ts";

export interface ReplySendDeps {
  ledger: ReplyLedger;
  sender: OutboundSender;
  logger: Logger;
}

/** The reply one attempt sends: the message it answers and where. */
export interface ReplySendTarget {
  event: QueuedEvent;
  jobId: string;
  workspace: Workspace;
  adapter: PlatformAdapter;
  /** How long the reply's records live (its marker's lifetime). */
  ttlMs: number;
  /** The answer an earlier attempt journaled: sent as it was written, so nothing is streamed while it is "written". */
  journaled: string | undefined;
}

/**
 * How one attempt sends its answer, chosen before the agent is asked. A reply an earlier attempt began to stream is
 * completed in that same message with the whole answer, never posted a second time. Else, where the conversation
 * takes a stream, the LLM's text streams into a message of this attempt's own as it is written; else the answer is
 * posted once (or, after a holder that died while posting, resumed by reading the platform back first).
 */
export class ReplySend {
  /** Receives the LLM's text as it is written, when it streams into a message of this attempt's own. */
  readonly onText: ((delta: string) => void) | undefined;
  private readonly writer: StreamWriter<unknown> | undefined;

  private constructor(
    private readonly deps: ReplySendDeps,
    private readonly target: ReplySendTarget,
    private readonly streams: OutboundStreams | undefined,
    /** The message an earlier attempt began to stream, to be completed. */
    private readonly streamed: string | undefined,
    private mark: SendStart | undefined,
  ) {
    const { event, workspace, ttlMs, journaled } = target;
    // Taking the mark before composing is the streamed path's alone (a post takes it after the journal): a mark with
    // no journaled answer and no stream found means its holder posted nothing a user keeps.
    this.writer =
      streams && streamed === undefined && journaled === undefined
        ? new StreamWriter({
            streams,
            workspace,
            reply: { event, text: "", replyKey: replyKey(event) },
            onStarted: (messageId) => deps.ledger.recordStream(event, messageId, ttlMs),
            logger: deps.logger,
          })
        : undefined;
    this.onText = this.writer?.push;
  }

  static async begin(deps: ReplySendDeps, target: ReplySendTarget): Promise<ReplySend> {
    const { event, jobId, workspace, adapter, ttlMs } = target;
    const streams = streamsFor(adapter, workspace, { event, text: "", replyKey: replyKey(event) });
    if (!streams) return new ReplySend(deps, target, undefined, undefined, undefined);
    let streamed = await deps.ledger.streamedMessage(event);
    let mark: SendStart | undefined;
    if (streamed === undefined) {
      mark = await deps.ledger.beginSend(event, jobId, ttlMs);
      if (!mark.first) streamed = await orphanedStream(deps.ledger, streams, workspace, event, ttlMs);
    }
    return new ReplySend(deps, target, streams, streamed, mark);
  }

  /** The sending mark this attempt took (first) or found held; the commit ends a first one. */
  get sending(): SendStart | undefined {
    return this.mark;
  }

  /**
   * Journals the agent's answer and returns the one that stands. A post takes its sending mark in the same step (one
   * statement on PostgreSQL), unless its lease was lost meanwhile: then it only journals, for the next holder.
   */
  async journal(answer: string, signal: AbortSignal): Promise<string> {
    const { event, jobId, ttlMs } = this.target;
    const { ledger } = this.deps;
    if (this.streams || this.mark || signal.aborted) return ledger.journalAnswer(event, answer, ttlMs);
    const { text, sending } = await ledger.journalAndBeginSend(event, answer, jobId, ttlMs);
    this.mark = sending;
    return text;
  }

  /**
   * Sends `text`, the complete (journaled) answer. Before a message of its own is posted or its stream finished, a
   * lease lost while the agent wrote, or about to lapse by this holder's clock, stops it: the reply is then its next
   * holder's.
   */
  async deliver(text: string, lease: HeldLease): Promise<Delivery> {
    const { event, jobId, workspace, adapter, ttlMs } = this.target;
    const reply = { event, text, replyKey: replyKey(event) };
    const { streams, streamed } = this;
    if (streams && streamed !== undefined) {
      return inSpan("send", { kind: SpanKind.CLIENT }, async (span) => {
        span.setAttributes({ "resident.send.streamed": true, "resident.send.completed": true });
        await streams.complete(reply, streamed, workspace);
        span.setAttribute("resident.send.status", "sent");
        return { status: "sent", messageId: streamed } as const;
      });
    }
    lease.assertHeld();
    if (!this.mark) {
      this.mark = await this.deps.ledger.beginSend(event, jobId, ttlMs);
      lease.assertHeld();
    }
    const { first } = this.mark;
    const { sender } = this.deps;
    return inSpan("send", { kind: SpanKind.CLIENT }, async (span) => {
      span.setAttribute("resident.send.first", first);
      // A stream the writer opened is finished by it; without one, the answer is posted once.
      const opened = await this.writer?.finish(text);
      span.setAttribute("resident.send.streamed", opened !== undefined);
      const delivery: Delivery =
        opened !== undefined
          ? { status: "sent", messageId: opened }
          : first
            ? await sender.send(adapter, workspace, reply, lease.signal)
            : await sender.resume(adapter, workspace, reply, lease.signal);
      span.setAttribute("resident.send.status", delivery.status);
      return delivery;
    });
  }

  /**
   * Writes nothing more to a stream of its own: the answer failed, and whoever retries it completes the message.
   * Resolves once a write in flight has landed.
   */
  async abandon(): Promise<void> {
    await this.writer?.abandon();
  }

  /** A stream of its own was opened, or may have been: the reply may be on the platform already. */
  get mayHavePosted(): boolean {
    return this.writer?.mayHaveOpened ?? false;
  }
}

/** The platform's streams, when it has them, the workspace streams, and the conversation takes a stream. */
function streamsFor<C>(
  adapter: PlatformAdapter<C>,
  workspace: Workspace<C>,
  reply: OutboundReply,
): OutboundStreams<C> | undefined {
  const { streams } = adapter;
  return streams && workspace.settings.streaming && streams.accepts(reply, workspace) ? streams : undefined;
}

/**
 * A stream that an earlier holder opened and died before recording (it left its sending mark): found on the
 * platform where it can be, and recorded, so that it is completed instead of a second message posted.
 */
async function orphanedStream<C>(
  ledger: ReplyLedger,
  streams: OutboundStreams<C>,
  workspace: Workspace<C>,
  event: QueuedEvent,
  ttlMs: number,
): Promise<string | undefined> {
  const found = await streams.findOpened?.({ event, text: "", replyKey: replyKey(event) }, workspace);
  if (!found) return undefined;
  trace.getActiveSpan()?.addEvent("adopted a stream its opener did not record");
  return ledger.recordStream(event, found.messageId, ttlMs);
}
