-- The open runs of a push service that named themselves: `/api/ping/:token/start?rid=<uuid>` (healthchecks.io's run
-- id) opens one, a finish with the same rid ends it (its duration recorded as the result's latency), and a run
-- left open past grace_s turns the service down, each on its own. A start without rid stays in
-- monitored_services.push_started_at.
create table push_runs (
  service_id uuid not null references monitored_services (id) on delete cascade,
  rid uuid not null,
  started_at timestamptz not null default now(),
  primary key (service_id, rid)
);
