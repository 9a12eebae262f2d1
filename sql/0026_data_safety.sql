-- The owner's data is never lost silently.
--
-- Versions: every row two clients can edit carries a version, raised once per transaction that changes it, so its
-- ETag changes with it and a write made against an older version is refused (412) instead of overwriting.
-- version_xact marks the transaction that raised it last: several updates in one transaction (a page edited, then
-- renumbered among its siblings) raise it once, and a writer can tell its own raise from a concurrent one.

create function raise_row_version() returns trigger language plpgsql as $$
begin
  if old.version_xact is distinct from pg_current_xact_id() then
    new.version := old.version + 1;
    new.version_xact := pg_current_xact_id();
  else
    new.version := old.version;
    new.version_xact := old.version_xact;
  end if;
  return new;
end $$;

do $$
declare
  versioned text;
begin
  foreach versioned in array array['pages', 'projects', 'tasks', 'refs', 'resources', 'source_docs', 'app_settings']
  loop
    execute format('alter table %I add column version integer not null default 1, '
                   'add column version_xact xid8 default pg_current_xact_id()', versioned);
    execute format('create trigger %I before update on %I for each row execute function raise_row_version()',
                   versioned || '_version', versioned);
  end loop;
end $$;

-- A proposed update or delete remembers the version of its target and the fields it changes as they were, so an
-- approval after the owner changed the target is refused (409 PENDING_CHANGE_STALE) with what changed since.
alter table pending_changes add column target_version integer,
  add column target_before jsonb;

-- Page history: every title or body a page has had, numbered per page, with who made it (the owner, an agent
-- writing directly, an approval of an agent's proposal, or the system) and when. The trigger catches every path a
-- page is written by; the writer names itself for the transaction in the setting hub.write_author (JSON).
-- The newest version is the page's current text; older ones go after the page_history retention (the last ones
-- always stay).
create table page_versions (
  page_id uuid not null references pages (id) on delete cascade,
  n integer not null check (n >= 1),
  title text not null,
  body text not null,
  size integer not null,
  author_kind text not null check (author_kind in ('owner', 'agent', 'approval', 'system')),
  -- No foreign keys: the history outlives the agent and the decided change.
  agent_id uuid,
  pending_change_id uuid,
  restored_from integer,
  created_at timestamptz not null default now(),
  primary key (page_id, n)
);
create index page_versions_created_idx on page_versions (created_at);

create function record_page_version() returns trigger language plpgsql as $$
declare
  author jsonb := nullif(current_setting('hub.write_author', true), '')::jsonb;
begin
  -- A page coming back from the trash brings its own history.
  if current_setting('hub.restoring', true) = 'on' then
    return null;
  end if;
  if tg_op = 'UPDATE' and old.title is not distinct from new.title and old.body is not distinct from new.body then
    return null;
  end if;
  insert into page_versions (page_id, n, title, body, size, author_kind, agent_id, pending_change_id)
  values (new.id, coalesce((select max(n) from page_versions where page_id = new.id), 0) + 1, new.title, new.body,
          octet_length(new.title) + octet_length(new.body), coalesce(author ->> 'kind', 'system'),
          (author ->> 'agent_id')::uuid, (author ->> 'pending_change_id')::uuid);
  return null;
end $$;

create trigger pages_history after insert or update of title, body on pages
  for each row execute function record_page_version();

insert into page_versions (page_id, n, title, body, size, author_kind, created_at)
select id, 1, title, body, octet_length(title) + octet_length(body), 'system', updated_at from pages;

-- Restores and deletes are audited as well.
alter table audit_log drop constraint audit_log_action_check;
alter table audit_log add constraint audit_log_action_check
  check (action in ('approve', 'reject', 'apply_direct', 'restore_version', 'trash', 'restore', 'purge'));

-- The trash: a deleted page, space, project or reference is kept here with everything its delete took along (every
-- row the delete cascades to, found through the foreign keys, so a table added later is covered too), as JSON in
-- parents-first order, until it is restored or purged. The rows themselves are really deleted, so no list or search
-- can show them.
create table trash (
  id uuid primary key default gen_random_uuid(),
  kind text not null check (kind in ('page', 'space', 'project', 'ref')),
  entity_id uuid not null,
  title text not null,
  -- Where it was (no foreign key: the space may be gone too).
  space_id uuid,
  rows jsonb not null,
  row_count integer not null,
  deleted_by jsonb not null,
  deleted_at timestamptz not null default now()
);
create index trash_deleted_idx on trash (deleted_at desc);

-- Every row a delete of `root_id` in `root` would take along: the row itself first, then, level by level, the rows
-- of each table whose foreign key cascades from a row already found. Each element is { "table", "row" }.
create function trash_collect(root regclass, root_id uuid) returns jsonb language plpgsql as $$
declare
  collected jsonb;
  frontier jsonb;
  next_frontier jsonb;
  parent record;
  fk record;
  found jsonb;
begin
  execute format('select jsonb_agg(jsonb_build_object(''table'', %L, ''row'', to_jsonb(t))) from %s t where id = $1',
                 root::text, root)
    using root_id into frontier;
  if frontier is null then
    return null;
  end if;
  collected := frontier;
  while jsonb_array_length(frontier) > 0 loop
    next_frontier := '[]';
    for parent in
      select e ->> 'table' as tbl, jsonb_agg(e -> 'row') as rows from jsonb_array_elements(frontier) e group by 1
    loop
      for fk in
        select c.conrelid::regclass as child,
          (select string_agg(format('c.%I', a.attname), ', ' order by k.ord)
           from unnest(c.conkey) with ordinality k (att, ord)
           join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.att) as child_cols,
          (select string_agg(format('p.%I', a.attname), ', ' order by k.ord)
           from unnest(c.confkey) with ordinality k (att, ord)
           join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.att) as parent_cols
        from pg_constraint c
        where c.contype = 'f' and c.confdeltype = 'c' and c.confrelid = parent.tbl::regclass
      loop
        execute format(
          'select coalesce(jsonb_agg(jsonb_build_object(''table'', %L, ''row'', to_jsonb(c))), ''[]'') from %s c ' ||
          'where (%s) in (select %s from jsonb_populate_recordset(null::%s, $1) p)',
          fk.child::text, fk.child, fk.child_cols, fk.parent_cols, parent.tbl::regclass)
          using parent.rows into found;
        select coalesce(jsonb_agg(f), '[]') into found
        from jsonb_array_elements(found) f where not collected @> jsonb_build_array(f);
        next_frontier := next_frontier || found;
        collected := collected || found;
      end loop;
    end loop;
    frontier := next_frontier;
  end loop;
  return collected;
end $$;

-- Puts collected rows back: table by table, each after the tables it references (one statement per table, so rows
-- of a table referencing itself go in together), without generated columns. Page history triggers stand aside.
create function trash_restore(collected jsonb) returns void language plpgsql as $$
declare
  t record;
  cols text;
begin
  perform set_config('hub.restoring', 'on', true);
  for t in
    with recursive tables as (
      select distinct (e ->> 'table')::regclass::oid as oid from jsonb_array_elements(collected) e
    ), edges as (
      select c.conrelid as child, c.confrelid as parent from pg_constraint c
      where c.contype = 'f' and c.conrelid <> c.confrelid
        and c.conrelid in (select oid from tables) and c.confrelid in (select oid from tables)
    ), depth (oid, d) as (
      select oid, 0 from tables
      union all
      select e.child, depth.d + 1 from depth join edges e on e.parent = depth.oid where depth.d < 32
    )
    select oid::regclass as tbl, max(d) as d from depth group by oid order by max(d)
  loop
    select string_agg(format('%I', attname), ', ' order by attnum) into cols
    from pg_attribute where attrelid = t.tbl and attnum > 0 and not attisdropped and attgenerated = '';
    execute format('insert into %s (%s) overriding system value select %s from jsonb_populate_recordset(null::%s, $1)',
                   t.tbl, cols, cols, t.tbl)
      using (select jsonb_agg(e -> 'row') from jsonb_array_elements(collected) e
             where (e ->> 'table')::regclass = t.tbl);
  end loop;
  perform set_config('hub.restoring', 'off', true);
end $$;
