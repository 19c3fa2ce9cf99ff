import { MalformedPayloadError, parsedOncePerBody, parseJsonBody } from "@resident/core";
import { z } from "zod";

const account = z.looseObject({ id: z.string().min(1), name: z.string().optional(), role: z.string().optional() });

/** The part of a Bot Framework activity resident reads; everything else is kept as it came. */
const activitySchema = z.looseObject({
  type: z.string(),
  id: z.string().optional(),
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
  channelData: z.looseObject({ tenant: z.looseObject({ id: z.string() }).optional() }).optional(),
});

export type InboundActivity = z.infer<typeof activitySchema>;

export const parseActivity = parsedOncePerBody((rawBody): InboundActivity => {
  const parsed = activitySchema.safeParse(parseJsonBody(rawBody));
  if (!parsed.success)
    throw new MalformedPayloadError(`not a Bot Framework activity: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
});
