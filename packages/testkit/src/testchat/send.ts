import type { OutboundReply, SentReply } from "@resident/core";
import { z } from "zod";
import type { TestchatApi } from "./api.ts";
import { toSendError, toTransportError } from "./errors.ts";

const postedSchema = z.object({ id: z.string() });
const listedSchema = z.array(z.object({ id: z.string(), author: z.string(), reply_to: z.string().optional() }));

const roomPath = (room: string) => `/rooms/${encodeURIComponent(room)}/messages`;

/** Posts the reply once, as an answer to the user's message. */
export async function postReply(api: TestchatApi, apiToken: string, reply: OutboundReply): Promise<SentReply> {
  const { conversation } = reply.event;
  let response: Response;
  try {
    response = await api.call(apiToken, "POST", roomPath(conversation.id), {
      text: reply.text,
      reply_to: conversation.replyToId,
    });
  } catch (error) {
    throw toTransportError(error);
  }
  if (!response.ok) throw await toSendError(response);
  return { messageId: postedSchema.parse(await response.json()).id };
}

/** The bot's answer to the user's message in the room's listing, if it is there. Throws when unreadable. */
export async function findPostedReply(
  api: TestchatApi,
  apiToken: string,
  botId: string | undefined,
  reply: OutboundReply,
): Promise<SentReply | undefined> {
  const { conversation } = reply.event;
  const response = await api.call(apiToken, "GET", roomPath(conversation.id));
  if (!response.ok) throw new Error(`Testchat could not list room ${conversation.id}: ${response.status}`);
  const listed = listedSchema.parse(await response.json());
  const ours = listed.find((m) => m.author === botId && m.reply_to === conversation.replyToId);
  return ours && { messageId: ours.id };
}
