import type { BotIdentity } from "@resident/core";

/** The bot as connect learnt it: its account (GET /me) and its direct chats (GET /rooms). */
export interface ChatworkBot {
  accountId: string;
  name?: string;
  directRoomIds: readonly string[];
}

/** BotIdentity holds strings only: the direct chats travel comma-separated. */
export function toIdentity(bot: ChatworkBot): BotIdentity {
  return {
    accountId: bot.accountId,
    ...(bot.name ? { name: bot.name } : {}),
    directRoomIds: bot.directRoomIds.join(","),
  };
}

export function fromIdentity(identity: BotIdentity): ChatworkBot {
  const { accountId, name, directRoomIds } = identity;
  if (!accountId) throw new Error("the Chatwork workspace has no bot account id: connect it first");
  return { accountId, name, directRoomIds: directRoomIds ? directRoomIds.split(",") : [] };
}
