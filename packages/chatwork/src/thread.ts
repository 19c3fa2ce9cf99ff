import type { BotIdentity, ThreadMessage } from "@resident/core";
import type { ChatworkApi } from "./api.ts";
import { latestRoomMessages } from "./room-messages.ts";

/**
 * The room's latest messages, oldest first, read when the agent is called into a room it has no memory of. It never
 * waits for a rate slot: the answer goes on without the room rather than hold a worker. Chatwork answers a 429 as
 * RateLimitedError through the API's own handling.
 */
export async function readThread(
  api: ChatworkApi,
  apiToken: string,
  identity: BotIdentity,
  roomId: string,
  limit: number,
): Promise<ThreadMessage[]> {
  const listed = await latestRoomMessages(api, apiToken, roomId, 0);
  return listed.slice(-limit).map((message) => {
    const accountId = String(message.account.account_id);
    return {
      id: message.message_id,
      author: message.account.name ?? accountId,
      isBot: accountId === identity.accountId,
      text: message.body,
    };
  });
}
