-- The assistant: conversations belong to an agent (and a space, or none for the global ones), one turn at a time;
-- a turn token narrows its agent's scope to the conversation's space; pending actions are agents' proposals to run
-- a task; AI usage keeps one record per turn (and per report from other tools).
alter table conversations add column agent_id uuid references agents (id) on delete cascade;
alter table conversations add column turn_started_at timestamptz;
create unique index conversations_agent_space_key on conversations (agent_id, space_id) nulls not distinct
  where agent_id is not null;

alter table agent_tokens add column space_id uuid references spaces (id) on delete cascade;

alter table spaces add column companion_agent_id uuid references agents (id) on delete set null;

create table pending_actions (
  id uuid primary key default gen_random_uuid(),
  action text not null,
  params jsonb not null default '{}',
  agent_id uuid references agents (id) on delete set null,
  status text not null default 'pending' check (status in ('pending', 'applying', 'approved', 'rejected')),
  job_id text,
  reason text,
  error text,
  decided_by text,
  decided_at timestamptz,
  created_at timestamptz not null default now()
);
create index pending_actions_status_idx on pending_actions (status, created_at);

create table ai_usage_records (
  id uuid primary key default gen_random_uuid(),
  agent_id uuid references agents (id) on delete set null,
  source text not null check (length(source) between 1 and 100),
  model text not null check (length(model) between 1 and 200),
  input_tokens integer not null default 0 check (input_tokens >= 0),
  output_tokens integer not null default 0 check (output_tokens >= 0),
  latency_ms integer check (latency_ms >= 0),
  ok boolean not null default true,
  local boolean not null default false,
  created_at timestamptz not null default now()
);
create index ai_usage_records_created_idx on ai_usage_records (created_at);
