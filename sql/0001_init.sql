-- Foundation: spaces, the generic settings store, agents and their tokens.

create table spaces (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(btrim(name)) between 1 and 200),
  description text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index spaces_name_key on spaces (lower(name));

create table app_settings (
  key text primary key check (key ~ '^[a-z][a-z0-9_.-]{0,99}$'),
  value jsonb not null,
  updated_at timestamptz not null default now()
);

create table agents (
  id uuid primary key default gen_random_uuid(),
  name text not null unique check (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  display_name text not null check (length(btrim(display_name)) between 1 and 200),
  persona text not null default '',
  capabilities text[] not null default '{}',
  tier text not null default 'suggest' check (tier in ('read', 'suggest', 'owner')),
  -- null: every space. Restrict, so deleting a space can never widen an agent's reach.
  space_id uuid references spaces (id) on delete restrict,
  status text not null default 'active' check (status in ('active', 'disabled')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table agent_tokens (
  id uuid primary key default gen_random_uuid(),
  agent_id uuid not null references agents (id) on delete cascade,
  label text not null default '',
  token_hash bytea not null unique,
  token_prefix text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index agent_tokens_agent_idx on agent_tokens (agent_id);
