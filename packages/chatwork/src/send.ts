import {
  type BotIdentity,
  type OutboundReply,
  OutcomeUnknownError,
  PermanentSendError,
  SendRejectedError,
  type SentReply,
} from "@resident/core";
import type { ChatworkApi } from "./api.ts";
import { errorText } from "./errors.ts";
import { fromIdentity } from "./identity.ts";
import { replyNotation, replyNotationPattern } from "./notation.ts";
import { type ListedMessage, latestRoomMessages, listedMessagesLimit } from "./room-messages.ts";

/** POST /rooms/{room_id}/messages, once, opened with the reply tag that also marks it as ours. */
export async function postReply(api: ChatworkApi, apiToken: string, reply: OutboundReply): Promise<SentReply> {
  const { conversation, author } = reply.event;
  const answer = await api.request({
    method: "POST",
    path: `/rooms/${encodeURIComponent(conversation.id)}/messages`,
    apiToken,
    postRoomId: conversation.id,
    form: { body: `${replyNotation(author.id, conversation.id, conversation.replyToId)}\n${reply.text}` },
  });
  // 403: the token's account may not post in the room (not a member, or read-only there); a retry meets the same.
  if (answer.status === 403) {
    throw new PermanentSendError(`Chatwork refused the post for good (403): ${errorText(answer.body)}`);
  }
  if (answer.status !== 200) {
    throw new SendRejectedError(`Chatwork refused the post (${answer.status}): ${errorText(answer.body)}`);
  }
  const messageId = (answer.body as { message_id?: unknown } | undefined)?.message_id;
  if (typeof messageId !== "string") throw new OutcomeUnknownError("Chatwork accepted the post without a message id");
  return { messageId };
}

/**
 * Our post is the bot's message carrying the reply tag to the user's message. It is certainly absent only when the
 * listing reaches back to the user's message (or holds the whole room); otherwise it may have scrolled out of the
 * latest 100, and this throws: unreadable, never resent. (The sender gives a late post time to land first.)
 */
export async function findPostedReply(
  api: ChatworkApi,
  apiToken: string,
  identity: BotIdentity,
  reply: OutboundReply,
): Promise<SentReply | undefined> {
  const { conversation, author } = reply.event;
  const bot = fromIdentity(identity);
  const marker = replyNotationPattern(author.id, conversation.id, conversation.replyToId);
  const listed = await latestRoomMessages(api, apiToken, conversation.id);
  const ours = listed.find((m) => String(m.account.account_id) === bot.accountId && marker.test(m.body));
  if (ours) return { messageId: ours.message_id };
  if (!reachesBack(listed, conversation.replyToId)) {
    throw new Error(`the reply could have scrolled out of room ${conversation.id}'s latest messages`);
  }
  return undefined;
}

function reachesBack(listed: ListedMessage[], userMessageId: string): boolean {
  return listed.length < listedMessagesLimit || listed.some((message) => message.message_id === userMessageId);
}
