-- A pending change's file (a suggest-tier agent's upload) lives on disk under DATA_DIR/pending-uploads/<change id>,
-- never in the row: the row keeps what the owner reviews it by (name, declared type, size, SHA-256). The file goes
-- when the change is applied or rejected. Uploads proposed before this kept the file base64 inside the payload; the
-- hub moves those to files at start (domains/pending-changes/files.ts).
alter table pending_changes
  add column file_name text check (length(file_name) <= 1000),
  add column file_type text check (length(file_type) <= 255),
  add column file_size integer check (file_size >= 0),
  add column file_sha256 text check (file_sha256 ~ '^[0-9a-f]{64}$'),
  add constraint pending_changes_file_whole check (
    (file_name is null) = (file_type is null)
    and (file_name is null) = (file_size is null)
    and (file_name is null) = (file_sha256 is null)
  );

-- The quota check counts an agent's undecided changes.
create index pending_changes_agent_open_idx on pending_changes (agent_id) where status in ('pending', 'applying');
