-- Capture: deferred captures and uploads, cancelled captures, the linkding pull's cursor, and search over the whole
-- text of a source document.

-- A suggest-tier agent's capture or upload waits for approval as a pending change like an entity write does.
alter table pending_changes drop constraint pending_changes_entity_type_check;
alter table pending_changes add constraint pending_changes_entity_type_check
  check (entity_type in ('page', 'project', 'task', 'ref', 'resource', 'source_doc', 'capture', 'upload'));

-- A capture whose queued job was deleted will never run: it says so instead of staying queued.
alter table captures drop constraint captures_state_check;
alter table captures add constraint captures_state_check
  check (state in ('queued', 'completed', 'failed', 'cancelled'));

-- Every way a job leaves the record while its capture still waits (DELETE /api/jobs/:id today) cancels the capture,
-- in the same transaction as the delete. Finished jobs' captures are completed or failed already and stay so.
create function cancel_capture_of_deleted_job() returns trigger
language plpgsql as $$
begin
  update captures set state = 'cancelled', error = 'the job was deleted before it completed', updated_at = now()
  where job_id = old.id and state = 'queued';
  return old;
end $$;
create trigger job_records_cancel_capture after delete on job_records
  for each row execute function cancel_capture_of_deleted_job();

-- Where a pull stopped: the newest modification time read from the source (linkding).
create table capture_sync_cursors (
  source text primary key,
  cursor timestamptz not null,
  updated_at timestamptz not null default now()
);

-- Search indexed only the first 200,000 characters of a document, so the end of a long upload was never found. It
-- now indexes all of the stored text (which DOCUMENT_MAX_CHARS bounds). PostgreSQL refuses a tsvector over 1 MB;
-- natural text stays far below it, and only text built to defeat it (hundreds of thousands of distinct tokens)
-- falls back to the first 200,000 characters instead of failing the write.
create function source_doc_search(title text, content text) returns tsvector
language plpgsql immutable parallel safe as $$
begin
  return setweight(to_tsvector('english'::regconfig, title), 'A')
    || setweight(to_tsvector('english'::regconfig, content), 'B');
exception when program_limit_exceeded then
  return setweight(to_tsvector('english'::regconfig, title), 'A')
    || setweight(to_tsvector('english'::regconfig, left(content, 200000)), 'B');
end $$;

alter table source_docs drop column search;
alter table source_docs add column search tsvector
  generated always as (source_doc_search(title, content)) stored;
alter table source_docs alter column search set storage main;
create index source_docs_search_idx on source_docs using gin (search);
