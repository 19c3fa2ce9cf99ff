import { MalformedPayloadError } from "@resident/core";
import { z } from "zod";

/* The parts of an Events API body the adapter reads; nothing else of it goes past normalize. */

export const urlVerificationSchema = z.object({ type: z.literal("url_verification"), challenge: z.string().min(1) });

export const appRateLimitedSchema = z.object({
  type: z.literal("app_rate_limited"),
  team_id: z.string().optional(),
  minute_rate_limited: z.number().optional(),
});

/** A body, a payload or an event, checked for its `type` only and passed on as it came. */
type Typed = { type: string } & Record<string, unknown>;

const isTyped = (value: unknown): value is Typed =>
  typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";

/**
 * What a body or payload is, read before its schema is chosen. A check rather than a schema: a zod object would
 * build a copy of the body on every delivery to hand back one string.
 */
export function typeOf(value: unknown, what: string): string {
  if (isTyped(value)) return value.type;
  const object = typeof value === "object" && value !== null && !Array.isArray(value);
  throw new MalformedPayloadError(`malformed ${what}: ${object ? "type: expected string" : "(root): expected object"}`);
}

export const eventCallbackSchema = z.object({
  type: z.literal("event_callback"),
  api_app_id: z.string().min(1),
  event_id: z.string().min(1),
  // Not a looseObject: that copies every key of the event, on every delivery, into an object nothing reads.
  event: z.custom<Typed>(isTyped, "expected an object with a string type"),
});

/** An app_mention or message event, before the policy decides what it is. */
export const messageEventSchema = z.object({
  type: z.enum(["app_mention", "message"]),
  subtype: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  bot_profile: z.object({ app_id: z.string().optional() }).optional(),
  channel: z.string().optional(),
  channel_type: z.string().optional(),
  ts: z.string().optional(),
  thread_ts: z.string().optional(),
  text: z.string().optional(),
});

export type MessageEvent = z.infer<typeof messageEventSchema>;

/** Someone opened a new assistant thread with the app. */
export const assistantThreadStartedSchema = z.object({
  type: z.literal("assistant_thread_started"),
  assistant_thread: z.object({ channel_id: z.string().min(1), thread_ts: z.string().min(1) }),
});

/* The parts of an interaction payload (the Interactivity Request URL's form field `payload`) the adapter reads. */

/** A click on a message's interactive element; only feedback_buttons clicks on a message are read further. */
export const blockActionsSchema = z.object({
  type: z.literal("block_actions"),
  user: z.object({ id: z.string().min(1) }),
  container: z.looseObject({ type: z.string(), message_ts: z.string().optional(), channel_id: z.string().optional() }),
  actions: z.array(z.looseObject({ type: z.string(), action_id: z.string(), action_ts: z.string().optional() })),
});

/** One click of our feedback buttons: the button's value and when Slack says it was clicked (epoch seconds). */
export const feedbackActionSchema = z.object({
  type: z.literal("feedback_buttons"),
  value: z.enum(["positive", "negative"]),
  action_ts: z.string().regex(/^\d{1,12}(\.\d{1,6})?$/),
});
