-- The hub as a gateway to other MCP servers: the downstream servers the owner connects (their headers sealed under
-- the hub's key, their tools as last listed), and downstream calls waiting for approval as pending actions that keep
-- the call's result once it is made.
create table mcp_servers (
  id uuid primary key default gen_random_uuid(),
  name text not null unique check (name ~ '^[a-z0-9][a-z0-9-]{0,39}$'),
  url text not null check (length(url) between 1 and 2000),
  -- { header name: sealed value }; sealed with the place mcp.header:<id>:<name>.
  headers jsonb not null default '{}',
  enabled boolean not null default true,
  timeout_ms integer not null default 30000 check (timeout_ms between 100 and 300000),
  tool_policy jsonb not null default '{}',
  default_policy text check (default_policy in ('pass', 'approve', 'deny')),
  -- The tools as last listed: [{ name, title, description, inputSchema, outputSchema, annotations }].
  tools jsonb not null default '[]',
  protocol_version text,
  last_error text,
  refreshed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

alter table pending_actions add column result jsonb;

alter table audit_log drop constraint audit_log_action_check;
alter table audit_log add constraint audit_log_action_check
  check (action in ('approve', 'reject', 'apply_direct', 'restore_version', 'trash', 'restore', 'purge', 'mcp_call'));
