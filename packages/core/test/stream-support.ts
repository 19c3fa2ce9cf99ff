import { StreamEndedError } from "../src/errors.ts";
import type { AgentRequest } from "../src/ports/agent.ts";
import type { OutboundStreams, StreamWrite } from "../src/ports/outbound-stream.ts";
import type { SentReply } from "../src/ports/platform-adapter.ts";
import { UnitPlatform } from "./pipeline-support.ts";

/** A streamed message as the unit platform keeps it. */
export interface UnitStreamedMessage {
  id: string;
  replyKey: string;
  text: string;
  streaming: boolean;
}

/** The unit platform with streamed messages: every write recorded; failures queued per method. */
export class StreamingUnitPlatform extends UnitPlatform {
  readonly messages: UnitStreamedMessage[] = [];
  readonly writes: { method: keyof OutboundStreams; messageId?: string; text: string }[] = [];
  readonly writeFailures: Partial<Record<"start" | "append" | "stop", Error[]>> = {};
  /** Called with each write before it is applied (a test can look at the ledger then). */
  onWrite: (method: string) => Promise<void> | void = () => {};

  readonly streams: OutboundStreams = {
    writeIntervalMs: 0,
    maxChunkChars: 12,
    accepts: () => true,
    start: async (write: StreamWrite): Promise<SentReply> => {
      await this.before("start", write);
      const message = {
        id: `s${this.messages.length + 1}`,
        replyKey: write.replyKey,
        text: write.text,
        streaming: true,
      };
      this.messages.push(message);
      return { messageId: message.id };
    },
    append: async (write, messageId) => {
      await this.before("append", write, messageId);
      const message = this.streaming(messageId);
      message.text += write.text;
    },
    stop: async (write, messageId) => {
      await this.before("stop", write, messageId);
      const message = this.streaming(messageId);
      message.text += write.text;
      message.streaming = false;
    },
    findOpened: async (reply) => {
      const open = this.messages.find((m) => m.replyKey === reply.replyKey && m.streaming);
      return open ? { messageId: open.id } : undefined;
    },
    complete: async (write, messageId) => {
      this.writes.push({ method: "complete", messageId, text: write.text });
      const message = this.message(messageId);
      message.streaming = false;
      message.text = write.text;
    },
  };

  /** Ends every open stream, as a platform does after its streams' lifetime. */
  expireStreams(): void {
    for (const message of this.messages) message.streaming = false;
  }

  private async before(method: "start" | "append" | "stop", write: StreamWrite, messageId?: string) {
    this.writes.push({ method, text: write.text, ...(messageId ? { messageId } : {}) });
    await this.onWrite(method);
    const failure = this.writeFailures[method]?.shift();
    if (failure) throw failure;
  }

  private message(id: string): UnitStreamedMessage {
    const message = this.messages.find((m) => m.id === id);
    if (!message) throw new Error(`no message ${id}`);
    return message;
  }

  private streaming(id: string): UnitStreamedMessage {
    const message = this.message(id);
    if (!message.streaming) throw new StreamEndedError("message_not_in_streaming_state");
    return message;
  }
}

/**
 * An agent that writes its answer word by word, yielding between words; `stallAfterWords` makes the next call
 * stop there and wait until its signal aborts (an instance that froze mid-answer).
 */
export function streamingAgent(answerFor: (call: number) => string) {
  const agent = {
    calls: 0,
    stallAfterWords: undefined as number | undefined,
    async answer({ onText, signal }: AgentRequest) {
      const call = ++agent.calls;
      const text = answerFor(call);
      const words = text.split(/(?<= )/);
      const stallAt = agent.stallAfterWords;
      agent.stallAfterWords = undefined;
      for (const [index, word] of words.entries()) {
        if (index === stallAt) {
          await new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
        }
        onText?.(word);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return { text, usage: { inputTokens: 1, outputTokens: words.length } };
    },
  };
  return agent;
}
