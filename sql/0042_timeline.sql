-- The ops timeline: one row per thing that happened, written by the domain it happened in at the time (never rebuilt
-- from other tables). Read newest first, paged by (at, id).

create table events (
  id bigint generated always as identity primary key,
  at timestamptz not null default clock_timestamp(),
  -- `area.what` (service.down, device.first_seen, page.updated).
  kind text not null check (kind ~ '^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+$' and length(kind) <= 100),
  severity text not null default 'info' check (severity in ('info', 'notice', 'warning', 'critical')),
  title text not null check (length(title) between 1 and 500),
  -- What it is about (service and its id, device and its MAC, page and its id); both or neither.
  subject_type text check (length(subject_type) between 1 and 50),
  subject_id text check (length(subject_id) between 1 and 200),
  -- Who did it: 'owner', 'system', or the acting agent's id.
  actor text not null default 'system' check (actor = 'owner' or actor = 'system' or actor ~ '^[0-9a-f-]{36}$'),
  -- The space of knowledge events (a scoped agent reads its space's events and the global ones, which have none).
  space_id uuid references spaces (id) on delete cascade,
  data jsonb not null default '{}' check (jsonb_typeof(data) = 'object'),
  search tsvector generated always as (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('simple', kind), 'B')
  ) stored,
  constraint events_subject_both check ((subject_type is null) = (subject_id is null))
);
create index events_at_idx on events (at desc, id desc);
create index events_subject_idx on events (subject_type, subject_id, at desc);
create index events_kind_idx on events (kind, at desc);
create index events_space_idx on events (space_id, at desc) where space_id is not null;
create index events_search_idx on events using gin (search);

-- Every process (an API process's live stream, another worker) hears of a new event by its id.
create function events_announce() returns trigger language plpgsql as $$
begin
  perform pg_notify('timeline_event', new.id::text);
  return null;
end $$;
create trigger events_announce after insert on events for each row execute function events_announce();
