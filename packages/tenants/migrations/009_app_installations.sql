-- One app of the operator's (Slack's "Add to Slack"), installed by many tenants' admins: each installation is a
-- workspace whose sealed credentials hold its tokens; this table only routes the app's deliveries to it.
-- install_key is "team:T…", or "enterprise:E…" for an Enterprise Grid org-wide install.
create table if not exists app_installations (
  platform text not null,
  install_key text not null,
  workspace_id text not null unique references workspaces (id) on delete cascade,
  installed_at timestamptz not null default now(),
  primary key (platform, install_key)
);

-- Each install begun in the console: bound to the tenant and the admin token that began it, kept as a hash, taken
-- once, and worthless after expires_at. token_id null: the operator began it.
create table if not exists install_states (
  state_hash text primary key,
  platform text not null,
  tenant_id text not null references tenants (id) on delete cascade,
  token_id text,
  expires_at timestamptz not null
);

-- A workspace the platform took its access away from (the app uninstalled, its tokens revoked) answers nothing
-- until it is installed again; the console shows why.
alter table workspaces add column if not exists disabled_at timestamptz;
alter table workspaces add column if not exists disabled_reason text;
