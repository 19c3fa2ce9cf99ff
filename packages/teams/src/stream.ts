import {
  type OutboundReply,
  type OutboundStreams,
  type SentReply,
  StreamEndedError,
  type StreamWrite,
  type WorkingIndicator,
  type Workspace,
} from "@resident/core";
import { LRUCache } from "lru-cache";
import type { BotTokenClient } from "./bot-token.ts";
import type { TeamsCredentials } from "./credentials.ts";
import { feedbackLoop } from "./feedback.ts";
import type { ReplySender } from "./send.ts";

/** What an informative update says while the first words are written. */
const informativeText = "Writing an answer…";

const streamInfo = (fields: Record<string, unknown>) => ({ type: "streaminfo", ...fields });

/**
 * Teams' streamed messages, in personal chats only (group chats and channels refuse them: ContentStreamNotAllowed):
 * an informative update opens the stream and names it (its activity id is the stream id), streaming updates carry
 * the whole text so far about once a second, and a final message with the same stream id ends it. Each update is a
 * POST of a typing activity with a `streaminfo` entity, through the reply sender (no SDK retries; 429 honoured).
 * Updates carry the text so far, so the opener keeps it; a takeover only ever sends the final message, or, where the
 * stream is over already, updates the message it became.
 */
export class TeamsStreams implements OutboundStreams<TeamsCredentials> {
  readonly writeIntervalMs = 1_000;
  readonly maxChunkChars = 4_000;
  private readonly opened = new LRUCache<string, { text: string; sequence: number }>({ max: 10_000, ttl: 3_600_000 });

  constructor(
    private readonly sender: ReplySender,
    private readonly tokens: (workspace: Workspace<TeamsCredentials>) => BotTokenClient,
  ) {}

  accepts(reply: OutboundReply): boolean {
    return reply.event.conversation.address?.conversationType === "personal";
  }

  async start(write: StreamWrite, workspace: Workspace<TeamsCredentials>): Promise<SentReply> {
    const { messageId } = await this.post(write, workspace, {
      type: "typing",
      text: informativeText,
      entities: [streamInfo({ streamType: "informative", streamSequence: 1 })],
    });
    // The first words go with the next update or the final message, which carry the whole text so far.
    this.opened.set(messageId, { text: write.text, sequence: 1 });
    return { messageId };
  }

  async append(write: StreamWrite, streamId: string, workspace: Workspace<TeamsCredentials>): Promise<void> {
    const stream = this.opened.get(streamId);
    if (!stream)
      throw new StreamEndedError("this instance did not open the stream; it is finished by its final message");
    const text = stream.text + write.text;
    await this.post(write, workspace, {
      type: "typing",
      text,
      entities: [streamInfo({ streamId, streamType: "streaming", streamSequence: stream.sequence + 1 })],
    });
    this.opened.set(streamId, { text, sequence: stream.sequence + 1 });
  }

  async stop(write: StreamWrite, streamId: string, workspace: Workspace<TeamsCredentials>): Promise<void> {
    const stream = this.opened.get(streamId);
    if (!stream) throw new StreamEndedError("this instance did not open the stream");
    await this.final({ ...write, text: stream.text + write.text }, streamId, workspace);
  }

  async complete(write: StreamWrite, streamId: string, workspace: Workspace<TeamsCredentials>): Promise<void> {
    try {
      await this.final(write, streamId, workspace);
    } catch (error) {
      if (!(error instanceof StreamEndedError)) throw error;
      // The stream is over: its final message landed already (a holder that died before its commit) or its time ran
      // out. The message it became is then given the whole answer in place, which is safe to repeat.
      await this.sender.update(write, workspace, this.tokens(workspace), streamId, {
        type: "message",
        text: write.text,
        textFormat: "markdown",
      });
      this.opened.delete(streamId);
    }
  }

  private async final(write: StreamWrite, streamId: string, workspace: Workspace<TeamsCredentials>): Promise<void> {
    await this.post(write, workspace, {
      type: "message",
      text: write.text,
      textFormat: "markdown",
      entities: [streamInfo({ streamId, streamType: "final" })],
      // The feedback loop goes on the final message, the one that stays.
      channelData: feedbackLoop,
    });
    this.opened.delete(streamId);
  }

  private post(write: StreamWrite, workspace: Workspace<TeamsCredentials>, activity: Record<string, unknown>) {
    return this.sender.post(write, workspace, this.tokens(workspace), activity);
  }
}

/** Group chats and channels take no stream: Teams shows the bot typing while the answer is written, then one post. */
export class TeamsTyping implements WorkingIndicator<TeamsCredentials> {
  constructor(
    private readonly sender: ReplySender,
    private readonly tokens: (workspace: Workspace<TeamsCredentials>) => BotTokenClient,
  ) {}

  async show(reply: OutboundReply, workspace: Workspace<TeamsCredentials>): Promise<void> {
    if (reply.event.conversation.address?.conversationType === "personal") return;
    await this.sender.post(reply, workspace, this.tokens(workspace), { type: "typing" });
  }

  /** A typing indicator lapses by itself (or when the reply arrives). */
  async clear(): Promise<void> {}
}
