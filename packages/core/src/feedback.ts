import type { Platform } from "./chat-event.ts";

export const votes = ["positive", "negative"] as const;
/** What a person said of an answer with its feedback buttons: 👍 or 👎. */
export type Vote = (typeof votes)[number];

/** One click on the feedback buttons of one of our answers, as an adapter normalizes it. */
export interface FeedbackClick {
  platform: Platform;
  tenantId: string;
  workspaceId: string;
  /** Our answer, in the platform's own ids (its conversation and message, say). */
  messageId: string;
  /** Who clicked, in the platform's id. */
  userId: string;
  vote: Vote;
  /**
   * The click's own identity on the platform (the moment it stamps on the click, or the click's delivery id): every
   * delivery of one click carries the same, and each new click another.
   */
  clickId: string;
  /** When the click was made, epoch milliseconds (the platform's time where it says, else the arrival). */
  clickedAt: number;
}

/** One UTC day's votes in a workspace: each person's latest vote on each answer, by the day it was cast. */
export interface DailyFeedback {
  /** YYYY-MM-DD, UTC. */
  day: string;
  positive: number;
  negative: number;
}

/**
 * The delivery identity of a click, for the event gate: platform, answer, person, vote and the click itself. Scoped
 * by workspace like every key (eventKey).
 */
export function clickDeliveryId(click: FeedbackClick): string {
  return `feedback:${click.platform}:${click.messageId}:${click.userId}:${click.vote}:${click.clickId}`;
}
