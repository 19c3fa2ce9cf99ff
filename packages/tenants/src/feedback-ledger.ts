import { type DailyFeedback, type FeedbackClick, type FeedbackLedger, recentDays } from "@resident/core";
import { databaseCall } from "./database-errors.ts";
import type { SqlClient } from "./sql-client.ts";

/**
 * Votes in `feedback_votes` (migration 008), one per person and answer. A click replaces the standing vote only when
 * it is later (by the platform's click time, then its click id, so every instance agrees on ties): one click recorded
 * any number of times, in any order, on any instance, is kept once.
 */
export class PgFeedbackLedger implements FeedbackLedger {
  constructor(private readonly sql: SqlClient) {}

  async record(click: FeedbackClick): Promise<boolean> {
    const kept = await databaseCall(() =>
      this.sql.query(
        `insert into feedback_votes (workspace_id, message_id, user_id, vote, click_id, clicked_at)
         values ($1, $2, $3, $4, $5, to_timestamp($6::double precision / 1000))
         on conflict (workspace_id, message_id, user_id) do update
           set vote = excluded.vote, click_id = excluded.click_id, clicked_at = excluded.clicked_at
           where (feedback_votes.clicked_at, feedback_votes.click_id) < (excluded.clicked_at, excluded.click_id)
         returning 1 as kept`,
        [click.workspaceId, click.messageId, click.userId, click.vote, click.clickId, click.clickedAt],
      ),
    );
    return kept.length > 0;
  }

  async daily(workspaceId: string, days: number, now: number): Promise<DailyFeedback[]> {
    const range = recentDays(now, days);
    const rows = await databaseCall(() =>
      this.sql.query<{ day: string; positive: number; negative: number }>(
        `select to_char(clicked_at at time zone 'UTC', 'YYYY-MM-DD') as day,
                count(*) filter (where vote = 'positive')::int as positive,
                count(*) filter (where vote = 'negative')::int as negative
           from feedback_votes
          where workspace_id = $1 and clicked_at >= $2::timestamp at time zone 'UTC'
          group by 1`,
        [workspaceId, range[0]],
      ),
    );
    const byDay = new Map(rows.map((row) => [row.day, row]));
    return range.map((day) => ({
      day,
      positive: byDay.get(day)?.positive ?? 0,
      negative: byDay.get(day)?.negative ?? 0,
    }));
  }
}
