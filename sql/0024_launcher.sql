-- The launcher: apps (tiles linking to what runs in the home lab, with the state of a monitored service), and
-- several dashboard boards.

create table apps (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  href text not null check (href ~ '^https?://'),
  description text not null default '',
  icon text,
  -- Apps are shown by group; positions are contiguous (0..n-1) within a group.
  group_name text not null default 'Apps' check (length(group_name) between 1 and 100),
  -- The order apps were added in (created_at is the same for every row of one transaction): groups are shown in
  -- the order of their first app.
  seq bigint generated always as identity,
  position integer not null check (position >= 0),
  service_id uuid references monitored_services (id) on delete set null,
  device_mac text references lan_devices (mac) on delete set null,
  -- The site's own icon, found from the href's origin when the app has none (PNG), and when it was last looked for.
  favicon bytea,
  favicon_checked_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  search tsvector generated always as (
    setweight(to_tsvector('english', name), 'A') ||
    setweight(to_tsvector('english', description), 'B') ||
    setweight(to_tsvector('english', group_name), 'C') ||
    setweight(to_tsvector('simple', href), 'C')
  ) stored,
  -- Deferred: a move renumbers a group in one statement and is checked at commit.
  constraint apps_group_position_key unique (group_name, position) deferrable initially deferred
);
create index apps_search_idx on apps using gin (search);
create index apps_service_idx on apps (service_id);

-- Apps are searchable like the knowledge kinds (domains/search): spelling hints and prefix completions.
create trigger apps_words after insert on apps referencing new table as new_rows
  for each statement execute function search_words_from_rows('name || '' '' || description || '' '' || group_name');
create trigger apps_words_update after update of name, description, group_name on apps
  for each row when (old.name is distinct from new.name or old.description is distinct from new.description
    or old.group_name is distinct from new.group_name)
  execute function search_words_from_row('name || '' '' || description || '' '' || group_name');
create trigger apps_lexemes after insert on apps referencing new table as new_rows
  for each statement execute function search_lexemes_insert();
create trigger apps_lexemes_update after update on apps for each row
  when (old.search is distinct from new.search) execute function search_lexemes_update();

-- An agent's app writes wait for approval like its other entity writes.
alter table pending_changes drop constraint pending_changes_entity_type_check;
alter table pending_changes add constraint pending_changes_entity_type_check
  check (entity_type in ('page', 'project', 'task', 'ref', 'resource', 'source_doc', 'capture', 'upload', 'app'));

-- Boards: named dashboards in tab order. The default board's layout is the dashboard layout (dashboard_layouts under
-- the owner's key); every other board's layout is kept there under 'board:<id>'.
create table boards (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 100),
  position integer not null check (position >= 0),
  is_default boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint boards_position_key unique (position) deferrable initially deferred
);
create unique index boards_one_default_idx on boards (is_default) where is_default;
insert into boards (name, position, is_default) values ('Home', 0, true);
