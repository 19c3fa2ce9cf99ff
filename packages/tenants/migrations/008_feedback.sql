-- Feedback on answers: each person's latest vote on each of our answers (Slack feedback_buttons, Teams' feedback
-- loop). One row per (workspace, answer, person): a later click replaces the vote, a repeated one changes nothing.
-- The console's counts per day are read from these rows, by the UTC day of each vote.
create table if not exists feedback_votes (
  workspace_id text not null references workspaces(id) on delete cascade,
  message_id text not null,
  user_id text not null,
  vote text not null check (vote in ('positive', 'negative')),
  click_id text not null,
  clicked_at timestamptz not null,
  primary key (workspace_id, message_id, user_id)
);
create index if not exists feedback_votes_by_day on feedback_votes (workspace_id, clicked_at);
