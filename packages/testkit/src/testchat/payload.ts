import { parsedOncePerBody, parseJsonBody, parsePayload } from "@resident/core";
import { z } from "zod";

const deliverySchema = z.object({
  delivery_id: z.string().min(1),
  message: z.object({
    room: z.string().min(1),
    id: z.string().min(1),
    author: z.string().min(1),
    bot: z.boolean().optional(),
    text: z.string(),
  }),
});

/** One webhook delivery: a message in a room, under the delivery's own id (a twin comes under another). */
export type TestchatDelivery = z.infer<typeof deliverySchema>;

/** Parses a delivery's body once, for verify and normalize both. Throws MalformedPayloadError. */
export const parseDelivery = parsedOncePerBody(
  (rawBody): TestchatDelivery => parsePayload(deliverySchema, parseJsonBody(rawBody), "Testchat delivery"),
);
