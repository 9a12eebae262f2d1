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
