import { parsedOncePerBody, parseJsonBody, parsePayload } from "@resident/core";
import { z } from "zod";

const account = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  role: z.string().optional(),
  aadObjectId: z.string().optional(),
});

/** The part of a Bot Framework activity resident reads; everything else is kept as it came. */
const activitySchema = z.looseObject({
  type: z.string(),
  id: z.string().optional(),
  /** An invoke's name (message/submitAction) and what it carries; a reply's parent activity. */
  name: z.string().optional(),
  value: z.unknown().optional(),
  replyToId: z.string().optional(),
  timestamp: z.string().optional(),
  serviceUrl: z.string().min(1),
  channelId: z.string(),
  from: account,
  recipient: account,
  conversation: z.looseObject({
    id: z.string().min(1),
    conversationType: z.string().optional(),
    isGroup: z.boolean().optional(),
    tenantId: z.string().optional(),
  }),
  text: z.string().optional(),
  entities: z.array(z.looseObject({ type: z.string() })).optional(),
  attachments: z.array(z.looseObject({ contentType: z.string().optional() })).optional(),
  channelData: z.looseObject({ tenant: z.looseObject({ id: z.string() }).optional() }).optional(),
});

export type InboundActivity = z.infer<typeof activitySchema>;

/** Parses a delivery's body once, for verify and normalize both. Throws MalformedPayloadError. */
export const parseDelivery = parsedOncePerBody(
  (rawBody): InboundActivity => parsePayload(activitySchema, parseJsonBody(rawBody), "Bot Framework activity"),
);

/** A message/submitAction invoke's value: the feedback loop's like or dislike (and the words typed, unread). */
export const submitActionSchema = z.looseObject({
  actionName: z.string(),
  actionValue: z.looseObject({ reaction: z.enum(["like", "dislike"]) }).optional(),
});
