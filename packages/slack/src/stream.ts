import {
  type OutboundReply,
  type OutboundStreams,
  OutcomeUnknownError,
  RateLimitedError,
  type RateLimiter,
  type SentReply,
  StreamEndedError,
  type StreamWrite,
  type Workspace,
} from "@resident/core";
import type { BotCall, BotCalls } from "./bot-calls.ts";
import type { SlackCredentials } from "./credentials.ts";
import { toSendError } from "./errors.ts";
import { answerBlocks, feedbackBlock } from "./feedback.ts";
import { replyMetadata } from "./reply-metadata.ts";
import { findOpenedStream } from "./send.ts";

/** chat.appendStream is a Tier 4 method (100+ a minute per workspace): the cluster shares one window per team. */
const appendsPerMinute = 100;

/**
 * Slack's streamed messages (Oct 2025): chat.startStream opens the message in the thread, chat.appendStream adds
 * markdown, chat.stopStream ends it, stamped with the reply key so that it can be found again and with the feedback
 * buttons appended under the text. A stream Slack no longer holds open (it lapses after some minutes,
 * `message_not_in_streaming_state`) is completed by chat.update, which replaces the message: the text then goes as
 * blocks with the buttons, as a post does.
 */
export class SlackStreams implements OutboundStreams<SlackCredentials> {
  /** One write a second per message, and fewer when the workspace's append window is full. */
  readonly writeIntervalMs = 1_000;
  /** markdown_text's limit. */
  readonly maxChunkChars = 12_000;

  constructor(
    private readonly calls: BotCalls,
    private readonly limiter?: RateLimiter,
  ) {}

  accepts(): boolean {
    return true;
  }

  async start(write: StreamWrite, workspace: Workspace<SlackCredentials>): Promise<SentReply> {
    const { conversation, author } = write.event;
    // Outside a DM, Slack needs to know whom the stream is for.
    const recipient = conversation.id.startsWith("D")
      ? {}
      : { recipient_user_id: author.id, recipient_team_id: workspace.identity.teamId };
    let ts: string | undefined;
    try {
      ({ ts } = await this.call(workspace)((client) =>
        client.chat.startStream({
          channel: conversation.id,
          thread_ts: conversation.threadId ?? conversation.replyToId,
          markdown_text: write.text,
          ...recipient,
        }),
      ));
    } catch (error) {
      throw toSendError(error, "chat.startStream");
    }
    if (!ts) throw new OutcomeUnknownError("Slack accepted chat.startStream without a message ts");
    return { messageId: ts };
  }

  /** A stream opened for this reply whose opener died before recording it: our bot's unstamped message after it. */
  async findOpened(reply: OutboundReply, workspace: Workspace<SlackCredentials>): Promise<SentReply | undefined> {
    const { botId } = workspace.identity;
    return botId ? findOpenedStream(this.call(workspace), reply, botId) : undefined;
  }

  async append(write: StreamWrite, ts: string, workspace: Workspace<SlackCredentials>): Promise<void> {
    const wait = await this.limiter?.take([
      { key: `slack:{${workspace.identity.teamId ?? workspace.id}}:append`, limit: appendsPerMinute, windowMs: 60_000 },
    ]);
    if (wait) throw new RateLimitedError(wait);
    await this.write(workspace, "chat.appendStream", (client) =>
      client.chat.appendStream({ channel: write.event.conversation.id, ts, markdown_text: write.text }),
    );
  }

  async stop(write: StreamWrite, ts: string, workspace: Workspace<SlackCredentials>): Promise<void> {
    await this.write(workspace, "chat.stopStream", (client) =>
      client.chat.stopStream({
        channel: write.event.conversation.id,
        ts,
        ...(write.text === "" ? {} : { markdown_text: write.text }),
        blocks: [feedbackBlock],
        metadata: replyMetadata(write),
      }),
    );
  }

  async complete(write: StreamWrite, ts: string, workspace: Workspace<SlackCredentials>): Promise<void> {
    const channel = write.event.conversation.id;
    await this.write(workspace, "chat.stopStream", (client) => client.chat.stopStream({ channel, ts })).catch(
      (error: unknown) => {
        if (!(error instanceof StreamEndedError)) throw error;
      },
    );
    await this.write(workspace, "chat.update", (client) =>
      client.chat.update({
        channel,
        ts,
        ...completedContent(write.text),
        metadata: replyMetadata(write),
      }),
    );
  }

  private call(workspace: Workspace<SlackCredentials>): BotCall {
    return this.calls.for(workspace);
  }

  private async write(
    workspace: Workspace<SlackCredentials>,
    method: string,
    run: Parameters<BotCall>[0],
  ): Promise<void> {
    try {
      await this.call(workspace)(run);
    } catch (error) {
      throw toSendError(error, method);
    }
  }
}

/** chat.update's content: the answer as blocks with the buttons, or (past a markdown block's limit) as markdown. */
function completedContent(text: string) {
  const blocks = answerBlocks(text);
  return blocks ? { text, blocks } : { markdown_text: text };
}
