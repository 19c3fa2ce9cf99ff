import { z } from "zod";
import type { ChatworkApi } from "./api.ts";
import { errorText } from "./errors.ts";

/** GET /rooms/{room_id}/messages?force=1 answers the latest 100 messages at most. */
export const listedMessagesLimit = 100;

const listedMessagesSchema = z.array(
  z.object({
    message_id: z.string(),
    account: z.object({ account_id: z.number(), name: z.string().optional() }),
    body: z.string(),
  }),
);

export type ListedMessage = z.infer<typeof listedMessagesSchema>[number];

/** The room's latest messages. force=1: without it Chatwork lists only what this token has not read yet. */
export async function latestRoomMessages(
  api: ChatworkApi,
  apiToken: string,
  roomId: string,
  patienceMs?: number,
): Promise<ListedMessage[]> {
  const answer = await api.request({
    method: "GET",
    path: `/rooms/${encodeURIComponent(roomId)}/messages?force=1`,
    apiToken,
    patienceMs,
  });
  if (answer.status === 204) return [];
  if (answer.status !== 200) {
    throw new Error(`Chatwork could not list room ${roomId} (${answer.status}): ${errorText(answer.body)}`);
  }
  const listed = listedMessagesSchema.safeParse(answer.body);
  if (!listed.success) throw new Error(`Chatwork listed room ${roomId} in an unexpected shape`);
  return listed.data;
}
