import { z } from "zod";
import type { InboundActivity } from "./payload.ts";

const mentionEntity = z.object({
  type: z.string().refine((type) => type.toLowerCase() === "mention"),
  mentioned: z.object({ id: z.string() }),
  text: z.string().min(1),
});

/** The texts (`<at>Bot</at>`) of the activity's mention entities that name one of `botIds`. */
export function botMentions(activity: InboundActivity, botIds: ReadonlySet<string>): string[] {
  return (activity.entities ?? []).flatMap((entity) => {
    const mention = mentionEntity.safeParse(entity);
    return mention.success && botIds.has(mention.data.mentioned.id) ? [mention.data.text] : [];
  });
}

/** Removes each mention's text as the entity gives it (with the spaces after it) and trims. */
export function withoutMentions(text: string, mentions: readonly string[]): string {
  let result = text;
  for (const mention of new Set(mentions)) {
    result = result.replace(new RegExp(`${mention.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[ \\t\\u00a0]*`, "g"), "");
  }
  return result.trim();
}
