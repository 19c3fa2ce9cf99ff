-- Receivers (Slack Socket Mode): the cluster's leases on the connections each workspace keeps open, and the
-- instances alive to share them. A row past expires_at counts as absent (its instance died or gave it back).
create table if not exists receiver_slots (
  workspace_id text not null,
  slot integer not null,
  instance_id text not null,
  token text not null,
  state text not null default 'connecting',
  since timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (workspace_id, slot)
);
create table if not exists receiver_instances (
  instance_id text primary key,
  expires_at timestamptz not null
);
