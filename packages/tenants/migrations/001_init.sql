create table tenants (
  id text primary key,
  name text not null,
  created_at timestamptz not null default now()
);

-- Tenant admin tokens, kept only as SHA-256 hashes.
create table admin_tokens (
  id text primary key,
  tenant_id text not null references tenants (id) on delete cascade,
  token_hash text not null unique,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index admin_tokens_tenant on admin_tokens (tenant_id);

-- At most one row: the operator token's hash.
create table operator_token (
  singleton boolean primary key default true check (singleton),
  token_hash text not null,
  created_at timestamptz not null default now()
);

create table workspaces (
  id text primary key,
  tenant_id text not null references tenants (id) on delete cascade,
  platform text not null check (platform in ('slack', 'teams', 'chatwork')),
  name text not null,
  -- Versioned AES-256-GCM ciphertext of the credentials object; see credential-cipher.ts.
  credentials_ciphertext text not null,
  -- The names of the credential fields that are set, so a console can show "set" without decrypting.
  credential_fields jsonb not null default '[]',
  settings jsonb not null default '{}',
  identity jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index workspaces_tenant on workspaces (tenant_id, created_at);

-- Who changed what. detail names the changed fields and never carries a value.
create table audit_log (
  id bigint generated always as identity primary key,
  tenant_id text,
  actor text not null,
  action text not null,
  target text not null,
  detail jsonb not null default '{}',
  at timestamptz not null default now()
);
create index audit_log_tenant on audit_log (tenant_id, id);

-- A known value sealed with the first key ever used, so a different SECRET_KEY is refused at start-up.
create table secret_key_check (
  singleton boolean primary key default true check (singleton),
  ciphertext text not null
);
