-- Incidents the hub opens itself from the timeline: a service down (after its retries), a certificate expired, a
-- backup failed, storage at ATTENTION. One incident per root cause; what fails under the same root joins it, and it
-- is resolved when everything in it has recovered.

create table incidents (
  id uuid primary key default gen_random_uuid(),
  title text not null check (length(title) between 1 and 200),
  state text not null default 'open' check (state in ('open', 'resolved')),
  opened_at timestamptz not null,
  resolved_at timestamptz,
  -- The root cause, a timeline subject: {type, id, name}.
  root jsonb not null check (jsonb_typeof(root) = 'object'),
  -- Everything in it (the root too): [{type, id, name, failing}].
  members jsonb not null default '[]' check (jsonb_typeof(members) = 'array'),
  -- The timeline events that shaped it: [{id, at, kind, title, severity}].
  events jsonb not null default '[]' check (jsonb_typeof(events) = 'array'),
  page_id uuid references pages (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint incidents_resolved_at check ((state = 'resolved') = (resolved_at is not null))
);
create index incidents_state_idx on incidents (state, opened_at desc);
-- One open incident per root cause.
create unique index incidents_open_root_idx on incidents ((root ->> 'type'), (root ->> 'id')) where state = 'open';

-- How far the follower has read the timeline (one row).
create table incidents_follower (
  only_row boolean primary key default true check (only_row),
  last_event_id bigint not null default 0
);
insert into incidents_follower default values;

-- An event that may open, join or resolve an incident queues the follower with it (the domains that raise them know
-- nothing of incidents). One job key: events close together are read in one run, a moment later.
create function incidents_follow_soon() returns trigger language plpgsql as $$
begin
  -- Before the worker's schema exists (a hub never started), the minute run catches up instead.
  if to_regnamespace('graphile_worker') is null then
    return null;
  end if;
  perform graphile_worker.add_job('incidents.follow', '{}'::json, job_key => 'incidents.follow',
                                  run_at => now() + interval '2 seconds');
  return null;
end $$;
create trigger events_incidents after insert on events for each row
  when (new.kind in ('service.down', 'service.up', 'service.degraded', 'service.warning', 'service.paused',
                     'certificate.expired', 'backup.failed', 'backup.ingested', 'backup.succeeded',
                     'storage.attention', 'storage.watch', 'storage.healthy'))
  execute function incidents_follow_soon();
