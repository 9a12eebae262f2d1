-- Read state of the capture inbox: a capture and a captured document are unread (read_at null) until the owner opens
-- them or marks them read. Once a capture has its document, the document's read_at is the one the inbox shows.
-- What was captured before read state existed counts as read, so an upgrade does not flood the inbox.

alter table captures add column read_at timestamptz;
update captures set read_at = updated_at;
create index captures_unread_idx on captures (space_id) where read_at is null;

alter table source_docs add column read_at timestamptz;
update source_docs set read_at = updated_at;
create index source_docs_unread_idx on source_docs (space_id) where read_at is null;

-- The push log of a push service: what `/api/ping/:token/log` sent (healthchecks.io's log ping), a message that
-- changes nothing. Only the newest messages of each service are kept (domains/health/store.ts prunes on insert).
create table push_log (
  id bigint generated always as identity primary key,
  service_id uuid not null references monitored_services (id) on delete cascade,
  at timestamptz not null default now(),
  message text not null check (length(message) <= 10240)
);
create index push_log_service_idx on push_log (service_id, id desc);
