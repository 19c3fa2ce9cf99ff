import type { DailyFeedback, FeedbackClick } from "../feedback.ts";

/**
 * Where votes are kept, cluster-wide (@resident/tenants' PgFeedbackLedger, on the database every instance shares).
 * A person has one vote per answer: `record` keeps the click when it is newer than the vote standing, so recording
 * one click again, in any order and on any instance, changes nothing. Rejects when the database cannot be reached.
 */
export interface FeedbackLedger {
  /** True when the click became the person's vote on the answer (it was new, or newer than the one standing). */
  record(click: FeedbackClick): Promise<boolean>;
  /** The workspace's last `days` UTC days up to `now` (epoch ms), oldest first, days without a vote included. */
  daily(workspaceId: string, days: number, now: number): Promise<DailyFeedback[]>;
}
