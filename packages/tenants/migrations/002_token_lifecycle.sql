-- Tenant admin tokens get a name, an optional expiry, and their first characters (not secret: 208 random bits
-- remain), by which people tell tokens apart in a list and sign-in failures are counted per token.
alter table admin_tokens add column name text not null default 'admin token';
alter table admin_tokens add column expires_at timestamptz;
alter table admin_tokens add column token_start text not null default '';

-- Whether a tenant's own admins may issue more admin tokens. Only the operator changes it; by default they may not.
alter table tenants add column admins_issue_tokens boolean not null default false;

-- The audit log is read newest first, by time and then id.
create index audit_log_tenant_at on audit_log (tenant_id, at, id);
create index audit_log_at on audit_log (at, id);

-- The passphrase salt of SECRET_KEY, shared by every instance that shares the database (see secret-key.ts).
create table secret_key_salt (
  singleton boolean primary key default true check (singleton),
  salt text not null
);
