-- Governance: writes proposed by suggest-tier agents wait in pending_changes until the owner approves or rejects
-- them; every decision, and every direct write of an owner-tier agent, is recorded in audit_log.

create table pending_changes (
  id uuid primary key default gen_random_uuid(),
  -- The proposing agent. Set null when the agent is deleted: the change and its history stay reviewable.
  agent_id uuid references agents (id) on delete set null,
  entity_type text not null
    check (entity_type in ('page', 'project', 'task', 'ref', 'resource', 'source_doc')),
  action text not null check (action in ('create', 'update', 'delete', 'upsert')),
  -- The target of an update or delete; creates and upserts name none.
  entity_id uuid,
  -- Where the change lands, as its rehearsal at proposal time found it (for filtering and review only).
  space_id uuid references spaces (id) on delete set null,
  payload jsonb,
  -- applying: claimed by one approval, so no second approval can apply it too.
  status text not null default 'pending' check (status in ('pending', 'applying', 'applied', 'rejected')),
  -- The error of the last failed apply.
  error text,
  result_entity_id uuid,
  reason text,
  decided_by text,
  decided_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((action in ('update', 'delete')) = (entity_id is not null)),
  check (status <> 'applied' or result_entity_id is not null)
);
create index pending_changes_status_idx on pending_changes (status, created_at desc);
create index pending_changes_agent_idx on pending_changes (agent_id, created_at desc);

create table audit_log (
  id uuid primary key default gen_random_uuid(),
  -- 'owner', 'owner:access:<email>' or the id of the agent that wrote directly.
  actor text not null check (length(actor) between 1 and 400),
  action text not null check (action in ('approve', 'reject', 'apply_direct')),
  pending_change_id uuid references pending_changes (id) on delete set null,
  entity_type text,
  entity_id uuid,
  outcome text not null check (outcome in ('applied', 'failed', 'rejected')),
  detail jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index audit_log_created_idx on audit_log (created_at desc, id);
create index audit_log_change_idx on audit_log (pending_change_id);
create index audit_log_entity_idx on audit_log (entity_type, entity_id);
