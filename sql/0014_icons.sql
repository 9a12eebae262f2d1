-- Icon sets: uploaded SVG and PNG icons, their bytes kept here so a set and its files are written in one
-- transaction (a failed upload leaves nothing behind) and a backup of the database holds them too.
create table icon_sets (
  name text primary key check (name ~ '^[a-z0-9-]{1,40}$'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- One icon per name within a set (an iconRef `set:<set>:<name>` names no type); sha256 is its strong ETag.
create table icon_files (
  set_name text not null references icon_sets (name) on delete cascade,
  name text not null check (name ~ '^[a-z0-9-]{1,100}$'),
  type text not null check (type in ('svg', 'png')),
  bytes bytea not null,
  sha256 text not null,
  created_at timestamptz not null default now(),
  primary key (set_name, name)
);

create index icon_files_name on icon_files (name);
