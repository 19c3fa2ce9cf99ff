import type { ThreadMessage } from "@resident/core";
import { z } from "zod";
import type { InboundActivity } from "./payload.ts";

/*
 * Teams has no API a bot may read a thread with; what an activity carries of the thread is the message it quotes. Two
 * shapes carry it: a `quotedReply` entity (the Teams SDKs' newer form: message id, sender, a preview of the text), and
 * the older `text/html` attachment whose `<blockquote itemtype="http://schema.skype.com/Reply">` holds the sender
 * (`itemprop="mri"`) and the text (`itemprop="preview"` or `"copy"`). The markup is Teams' own, so a few tolerant
 * patterns read it; no HTML is kept, only text.
 */

const quotedReplyEntity = z.object({
  type: z.literal("quotedReply"),
  quotedReply: z.object({
    messageId: z.string(),
    senderId: z.string().optional(),
    senderName: z.string().optional(),
    preview: z.string().optional(),
  }),
});

const htmlAttachment = z.object({ contentType: z.literal("text/html"), content: z.string() });
const replyQuote = /<blockquote[^>]*itemtype="http:\/\/schema\.skype\.com\/Reply"[^>]*>([\s\S]*?)<\/blockquote>/gi;

/** The messages the activity quotes, oldest first (as they appear). */
export function quotedMessages(activity: InboundActivity): ThreadMessage[] {
  const fromEntities = (activity.entities ?? []).flatMap((entity) => {
    const parsed = quotedReplyEntity.safeParse(entity);
    if (!parsed.success) return [];
    const { messageId, senderId, senderName, preview } = parsed.data.quotedReply;
    return preview ? [{ id: messageId, author: senderName ?? senderId ?? "someone", isBot: false, text: preview }] : [];
  });
  if (fromEntities.length > 0) return fromEntities;
  return (activity.attachments ?? []).flatMap((attachment) => {
    const parsed = htmlAttachment.safeParse(attachment);
    return parsed.success
      ? [...parsed.data.content.matchAll(replyQuote)].flatMap(([block]) => fromBlockquote(block))
      : [];
  });
}

function fromBlockquote(block: string): ThreadMessage[] {
  const id = /itemid="([^"]*)"/.exec(block)?.[1] ?? "";
  const author = /<[^>]*itemprop="mri"[^>]*>([\s\S]*?)<\//.exec(block)?.[1];
  const body = /<p[^>]*itemprop="(?:copy|preview)"[^>]*>([\s\S]*?)<\/p>/.exec(block)?.[1];
  const text = body === undefined ? "" : plain(body);
  if (text === "") return [];
  return [{ id, author: author === undefined ? "someone" : plain(author) || "someone", isBot: false, text }];
}

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", apos: "'", nbsp: " " };

function plain(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, name: string) => entities[name] ?? "")
    .trim();
}
