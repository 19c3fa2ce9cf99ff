-- MCP servers attached to a workspace: the agent offers their tools. The auth header's value is sealed like a
-- workspace's credentials (bound to the server's row) and never read back by the admin API.
create table workspace_tool_servers (
  id text primary key,
  workspace_id text not null references workspaces (id) on delete cascade,
  name text not null,
  url text not null,
  auth_header_name text,
  auth_ciphertext text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, name)
);
