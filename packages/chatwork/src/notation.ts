/*
 * Chatwork's message notation (developer.chatwork.com/docs/message-notation): [To:{account_id}] addresses an account;
 * [rp aid={account_id} to={room_id}-{message_id}] replies to a message and addresses its author — the Japanese
 * client writes the same tag as [返信 aid=… to=…]; [qt]…[/qt] quotes, and a [To:] inside a quote notifies nobody.
 */

const replyTagName = "(?:rp|返信)";

/** The reply notation we open our answers with; it also marks the post so it can be found again. */
export function replyNotation(accountId: string, roomId: string, messageId: string): string {
  return `[rp aid=${accountId} to=${roomId}-${messageId}]`;
}

/** Finds a reply to one message by one author, in either spelling. */
export function replyNotationPattern(accountId: string, roomId: string, messageId: string): RegExp {
  return new RegExp(`\\[${replyTagName}\\s+aid=${digits(accountId)}\\s+to=${digits(roomId)}-${digits(messageId)}\\]`);
}

/** Whether the message addresses the account with [To:] or a reply to one of its messages, outside quotes. */
export function addressesAccount(body: string, accountId: string): boolean {
  return mentionTag(accountId).test(body.replace(/\[qt\][\s\S]*?\[\/qt\]/g, ""));
}

/** The body without the account's [To:] and reply tags, nor the name (and さん/様) the client writes after them. */
export function withoutMention(body: string, accountId: string, name?: string): string {
  const writtenName = name ? `(?:[ \\t]*${escapeRegExp(name)}[ \\t]*(?:さん|様)?)?` : "";
  return body.replace(new RegExp(`${mentionTag(accountId).source}${writtenName}`, "g"), "").trim();
}

function mentionTag(accountId: string): RegExp {
  const id = digits(accountId);
  return new RegExp(`\\[(?:To:${id}|${replyTagName}\\s+aid=${id}\\s+to=\\d+-\\d+)\\]`);
}

function digits(id: string): string {
  if (!/^\d+$/.test(id)) throw new Error(`not a Chatwork id: ${JSON.stringify(id)}`);
  return id;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
