-- Devices on the LAN and the service health registry: checks kept for a retention period, state changes as events,
-- and the targets the owner dismissed from discovery.

create table lan_devices (
  mac text primary key check (mac ~ '^([0-9a-f]{2}:){5}[0-9a-f]{2}$'),
  ip text,
  hostname text,
  name text,
  vendor text,
  random_mac boolean not null default false,
  icon text,
  notes text,
  type text,
  location text,
  status text not null default 'new' check (status in ('new', 'known', 'ignored')),
  present boolean not null default false,
  -- The fields the owner set (at creation or in a patch): a scan never overwrites them.
  owner_fields text[] not null default '{}',
  first_seen timestamptz not null default now(),
  last_seen timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index lan_devices_ip_idx on lan_devices (ip);

create table monitored_services (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  category text not null default 'Services',
  kind text not null check (kind in ('http', 'tcp')),
  url text,
  host text,
  port integer check (port between 1 and 65535),
  status_min integer not null default 200,
  status_max integer not null default 399,
  keyword text,
  follow_redirects boolean not null default true,
  verify_tls boolean not null default true,
  interval_s integer not null default 60 check (interval_s >= 10),
  timeout_ms integer not null default 5000,
  retries integer not null default 0 check (retries >= 0),
  enabled boolean not null default true,
  external boolean not null default false,
  icon text,
  link text,
  device_mac text,
  discovered boolean not null default false,
  notes text,
  -- One thing everywhere: http scheme://host:port/path, tcp tcp://host:port. One service per target.
  target text not null unique,
  -- The cached status, written by each check.
  state text not null default 'pending' check (state in ('up', 'down', 'pending', 'unknown')),
  latency_ms integer,
  checked_at timestamptz,
  since timestamptz,
  message text,
  failures integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index monitored_services_due_idx on monitored_services (enabled, checked_at);

create table health_results (
  service_id uuid not null references monitored_services (id) on delete cascade,
  checked_at timestamptz not null default now(),
  ok boolean not null,
  state text not null,
  latency_ms integer,
  message text
);
create index health_results_service_idx on health_results (service_id, checked_at desc);
create index health_results_checked_idx on health_results (checked_at);

create table health_events (
  id uuid primary key default gen_random_uuid(),
  service_id uuid references monitored_services (id) on delete set null,
  service_name text not null,
  from_state text not null,
  to_state text not null,
  message text,
  at timestamptz not null default now()
);
create index health_events_at_idx on health_events (at desc);

create table health_dismissed (
  target text primary key,
  dismissed_at timestamptz not null default now()
);
