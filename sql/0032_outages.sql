-- Alerts that matter: maintenance windows, one alert per outage, and approving from the phone.

-- A planned maintenance: one window (starts_at to ends_at) or a recurring one (an RFC 5545 RRULE from starts_at, each
-- occurrence lasting duration_minutes). The services it covers are those listed and those running on a listed
-- resource.
create table maintenance_windows (
  id uuid primary key default gen_random_uuid(),
  title text not null check (length(btrim(title)) between 1 and 200),
  starts_at timestamptz not null,
  ends_at timestamptz,
  rrule text,
  duration_minutes integer check (duration_minutes between 1 and 10080),
  service_ids uuid[] not null default '{}',
  resource_ids uuid[] not null default '{}',
  notify_start_end boolean not null default false,
  -- The start of the occurrence announced as started (maintenance.started), until its end is announced.
  announced_start timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (
    (rrule is null and ends_at is not null and ends_at > starts_at and duration_minutes is null)
    or (rrule is not null and ends_at is null and duration_minutes is not null)
  )
);

-- What a service runs on: a resource (whose dependencies are the resource graph) or a LAN device. A host check is
-- the service whose state is its resource's (or device's) own: while it is down, so is everything on it.
alter table monitored_services
  add column resource_id uuid references resources (id) on delete set null,
  add column host_check boolean not null default false,
  -- The service whose alert announced this service's current downtime: itself, the root it was folded into, or
  -- null (up, not yet alerted, or down during maintenance).
  add column down_alert uuid references monitored_services (id) on delete set null;
create index monitored_services_resource_idx on monitored_services (resource_id);
-- Services down now were alerted on their own before outages were judged together.
update monitored_services set down_alert = id where state = 'down';

-- Checks made during maintenance do not count against uptime.
alter table health_results add column maintenance boolean not null default false;

-- A state change folded into its root's alert names the root; one made during maintenance names the window.
alter table health_events
  add column suppressed_by uuid references monitored_services (id) on delete set null,
  add column maintenance_id uuid references maintenance_windows (id) on delete set null;

-- Approve from the phone: single-use tokens, each bound to one pending change or action and one decision, kept as
-- their SHA-256 digest only.
create table approval_tokens (
  digest bytea primary key,
  pending_change_id uuid references pending_changes (id) on delete cascade,
  pending_action_id uuid references pending_actions (id) on delete cascade,
  decision text not null check (decision in ('approve', 'reject')),
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now(),
  check ((pending_change_id is null) <> (pending_action_id is null))
);
create index approval_tokens_expires_idx on approval_tokens (expires_at);
