import type { LaneSql } from "./sql.ts";

/*
 * The lane's two tables. Claims: one row per key, in progress (token and owner set) until it is done (value set);
 * a row past `expires_at` counts as absent, is taken over by the next claim, and is swept. Jobs: one row per job id,
 * waiting → active (token, locked_until renewed while it runs) → completed or failed; an active row whose lock lapsed
 * (its worker died) is taken again.
 */
const schema = `
create table if not exists lane_claims (
  key text primary key,
  token text,
  owner text,
  done boolean not null default false,
  value text,
  expires_at timestamptz not null
);
create index if not exists lane_claims_expiry on lane_claims (expires_at);
create table if not exists lane_jobs (
  id text primary key,
  data jsonb not null,
  state text not null default 'waiting',
  attempt integer not null default 0,
  run_at timestamptz not null default now(),
  token text,
  locked_until timestamptz,
  finished_at timestamptz
);
create index if not exists lane_jobs_due on lane_jobs (run_at) where state in ('waiting', 'active');
create index if not exists lane_jobs_finished on lane_jobs (finished_at) where state in ('completed', 'failed');
`;

/** Any fixed 64-bit number will do; this one is the tenants' migration lock plus one. */
const schemaLock = "8243121589464690293";

/**
 * Creates the lane's tables if they are missing, in one statement. Instances starting together take turns on an
 * advisory lock held until it commits: two concurrent `create table if not exists` can otherwise collide on the
 * catalog.
 */
export async function ensureLaneSchema(sql: LaneSql): Promise<void> {
  await sql.query(`do $$ begin perform pg_advisory_xact_lock(${schemaLock}); ${schema} end $$`);
}
