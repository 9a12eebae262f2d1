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

alter table pages add column version integer not null default 1,
  add column version_xact xid8 default pg_current_xact_id();
alter table projects add column version integer not null default 1,
  add column version_xact xid8 default pg_current_xact_id();
alter table tasks add column version integer not null default 1,
  add column version_xact xid8 default pg_current_xact_id();
alter table refs add column version integer not null default 1,
  add column version_xact xid8 default pg_current_xact_id();
alter table resources add column version integer not null default 1,
  add column version_xact xid8 default pg_current_xact_id();
alter table source_docs add column version integer not null default 1,
  add column version_xact xid8 default pg_current_xact_id();
alter table app_settings add column version integer not null default 1,
  add column version_xact xid8 default pg_current_xact_id();

create trigger pages_version before update on pages for each row execute function raise_row_version();
create trigger projects_version before update on projects for each row execute function raise_row_version();
create trigger tasks_version before update on tasks for each row execute function raise_row_version();
create trigger refs_version before update on refs for each row execute function raise_row_version();
create trigger resources_version before update on resources for each row execute function raise_row_version();
create trigger source_docs_version before update on source_docs for each row execute function raise_row_version();
create trigger app_settings_version before update on app_settings
  for each row execute function raise_row_version();

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
