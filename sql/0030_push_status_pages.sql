-- Heartbeats and public status pages.
--
-- A push service is checked by what it sends: a heartbeat to /api/push/:token or /api/ping/:token. The token is
-- stored as its SHA-256 only (it is a credential by itself and backups, exports and database dumps must not carry
-- it): the owner sees it once, when the service is made or the token renewed. last_push_at is the last heartbeat,
-- push_started_at an open `start` waiting for its finish; grace_s is how late a heartbeat (or a finish) may be.
alter table monitored_services drop constraint if exists monitored_services_kind_check;
alter table monitored_services add constraint monitored_services_kind_check
  check (kind in ('http', 'tcp', 'ping', 'dns', 'tls', 'push'));
alter table monitored_services
  add column push_token_hash bytea unique,
  add column grace_s integer not null default 60 check (grace_s between 0 and 604800),
  add column last_push_at timestamptz,
  add column push_started_at timestamptz;

-- A status page lists services by their id; what it shows of them is decided by the code serving it (name, state,
-- uptime), never the row.
create table status_pages (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique check (slug ~ '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$'),
  title text not null,
  description text,
  public boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table status_page_services (
  page_id uuid not null references status_pages (id) on delete cascade,
  service_id uuid not null references monitored_services (id) on delete cascade,
  position integer not null,
  primary key (page_id, service_id)
);
create index status_page_services_service_idx on status_page_services (service_id);
