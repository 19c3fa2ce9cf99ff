import { type OutboundReply, OutcomeUnknownError, type SentReply } from "@resident/core";
import type { BotCall } from "./bot-calls.ts";
import { toSendError } from "./errors.ts";
import { answerBlocks } from "./feedback.ts";
import { findStampedReply, findUnstampedReply, replyMetadata } from "./reply-metadata.ts";

/**
 * chat.postMessage into the thread, once, stamped with the reply key so it can be found again, with the feedback
 * buttons under the answer.
 */
export async function postReply(call: BotCall, reply: OutboundReply): Promise<SentReply> {
  const { conversation } = reply.event;
  let ts: string | undefined;
  try {
    ({ ts } = await call((client) =>
      client.chat.postMessage({
        channel: conversation.id,
        thread_ts: conversation.threadId,
        text: reply.text,
        blocks: answerBlocks(reply.text),
        unfurl_links: false,
        metadata: replyMetadata(reply),
      }),
    ));
  } catch (error) {
    throw toSendError(error, "chat.postMessage");
  }
  if (!ts) throw new OutcomeUnknownError("Slack accepted chat.postMessage without a message ts");
  return { messageId: ts };
}

/** Reads the thread back for a message stamped with this reply's key. Throws when the thread cannot be read. */
export function findPostedReply(call: BotCall, reply: OutboundReply): Promise<SentReply | undefined> {
  return findInThread(call, reply, (page) => findStampedReply(page, reply.replyKey));
}

/** Reads the thread back for a stream our bot opened after the user's message and never stopped. */
export function findOpenedStream(call: BotCall, reply: OutboundReply, botId: string): Promise<SentReply | undefined> {
  return findInThread(call, reply, (page) => findUnstampedReply(page, botId, reply.event.conversation.replyToId));
}

function findInThread(
  call: BotCall,
  reply: OutboundReply,
  find: (page: unknown) => string | undefined,
): Promise<SentReply | undefined> {
  const { conversation } = reply.event;
  // A read: run again from the first page if the token is refused and refreshed.
  return call(async (client) => {
    const pages = client.paginate("conversations.replies", {
      channel: conversation.id,
      ts: conversation.threadId ?? conversation.replyToId,
      include_all_metadata: true,
      limit: 200,
    });
    for await (const page of pages) {
      const ts = find(page);
      if (ts) return { messageId: ts };
    }
    return undefined;
  });
}
