-- Knowledge store: pages, projects, tasks, refs, source documents, resources, the network host inventory and
-- conversations. Everything in a space goes with the space (on delete cascade); the API refuses to delete a space
-- that still has content unless the owner asks for the cascade.
-- Search: generated tsvector columns (titles weight A, bodies weight B) with GIN indexes. Bodies are cut at
-- 200,000 characters before indexing so an oversized document can never exceed the tsvector size limit.

create table pages (
  id uuid primary key default gen_random_uuid(),
  space_id uuid not null references spaces (id) on delete cascade,
  parent_id uuid,
  position integer not null default 0 check (position >= 0),
  title text not null check (length(btrim(title)) between 1 and 500),
  body text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  search tsvector generated always as (
    setweight(to_tsvector('english', title), 'A') ||
    setweight(to_tsvector('english', left(body, 200000)), 'B')
  ) stored,
  unique (id, space_id),
  -- A parent is always in the same space; deleting a page deletes its subtree.
  foreign key (parent_id, space_id) references pages (id, space_id) on delete cascade,
  check (parent_id is null or parent_id <> id)
);
-- Siblings never share a position. Deferred: a move renumbers a whole sibling group in one statement.
alter table pages add constraint pages_sibling_position_key
  unique nulls not distinct (space_id, parent_id, position) deferrable initially deferred;
create index pages_parent_idx on pages (parent_id);
create index pages_search_idx on pages using gin (search);

create table projects (
  id uuid primary key default gen_random_uuid(),
  space_id uuid not null references spaces (id) on delete cascade,
  name text not null check (length(btrim(name)) between 1 and 300),
  status text not null default 'active' check (status in ('planned', 'active', 'paused', 'done', 'archived')),
  research_status text not null default 'idle'
    check (research_status in ('idle', 'queued', 'running', 'done', 'failed')),
  research_notes text not null default '',
  research_started_at timestamptz,
  research_finished_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (id, space_id)
);
create index projects_space_idx on projects (space_id, lower(name));

create table tasks (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null,
  space_id uuid not null references spaces (id) on delete cascade,
  title text not null check (length(btrim(title)) between 1 and 500),
  status text not null default 'todo' check (status in ('todo', 'doing', 'done', 'cancelled')),
  due_at timestamptz,
  notes text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- A task lives in its project's space.
  foreign key (project_id, space_id) references projects (id, space_id) on delete cascade on update cascade
);
create index tasks_project_idx on tasks (project_id, space_id);
create index tasks_space_idx on tasks (space_id);

create table refs (
  id uuid primary key default gen_random_uuid(),
  space_id uuid not null references spaces (id) on delete cascade,
  source text not null check (length(btrim(source)) between 1 and 100),
  external_id text not null check (length(external_id) between 1 and 500),
  url text,
  title text not null default '',
  notes text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  search tsvector generated always as (
    setweight(to_tsvector('english', title), 'A') ||
    setweight(to_tsvector('english', left(notes, 200000)), 'B') ||
    setweight(to_tsvector('simple', coalesce(url, '')), 'C')
  ) stored,
  constraint refs_identity_key unique (source, external_id)
);
create index refs_space_idx on refs (space_id);
create index refs_search_idx on refs using gin (search);

create table project_refs (
  project_id uuid not null references projects (id) on delete cascade,
  ref_id uuid not null references refs (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (project_id, ref_id)
);
create index project_refs_ref_idx on project_refs (ref_id);

create table source_docs (
  id uuid primary key default gen_random_uuid(),
  space_id uuid not null references spaces (id) on delete cascade,
  url text,
  title text not null default '',
  content text not null default '',
  content_type text not null default 'text/plain',
  origin text not null check (origin in ('url', 'upload', 'webhook', 'video')),
  captured_at timestamptz not null default now(),
  metadata jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  search tsvector generated always as (
    setweight(to_tsvector('english', title), 'A') ||
    setweight(to_tsvector('english', left(content, 200000)), 'B')
  ) stored
);
-- One document per URL per space (uploads have no URL); ingestion upserts on it.
create unique index source_docs_space_url_key on source_docs (space_id, url);
create index source_docs_space_captured_idx on source_docs (space_id, captured_at desc);
create index source_docs_search_idx on source_docs using gin (search);

create table resources (
  id uuid primary key default gen_random_uuid(),
  space_id uuid not null references spaces (id) on delete cascade,
  name text not null check (length(btrim(name)) between 1 and 200),
  kind text not null default 'other',
  host text,
  notes text not null default '',
  monitoring jsonb not null default '{}',
  metadata jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index resources_space_idx on resources (space_id, lower(name));

create table resource_dependencies (
  resource_id uuid not null references resources (id) on delete cascade,
  depends_on_id uuid not null references resources (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (resource_id, depends_on_id),
  check (resource_id <> depends_on_id)
);
create index resource_dependencies_depends_on_idx on resource_dependencies (depends_on_id);

create table network_hosts (
  id uuid primary key default gen_random_uuid(),
  hostname text not null check (length(btrim(hostname)) between 1 and 253),
  ip inet,
  role text not null default '',
  os text not null default '',
  notes text not null default '',
  last_seen_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index network_hosts_hostname_key on network_hosts (lower(hostname));

-- Conversations belong to a space or to none (global).
create table conversations (
  id uuid primary key default gen_random_uuid(),
  space_id uuid references spaces (id) on delete cascade,
  title text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index conversations_space_idx on conversations (space_id, updated_at desc);

create table messages (
  id uuid primary key default gen_random_uuid(),
  conversation_id uuid not null references conversations (id) on delete cascade,
  role text not null check (role in ('user', 'assistant', 'system', 'tool')),
  content text not null default '',
  metadata jsonb not null default '{}',
  created_at timestamptz not null default now(),
  search tsvector generated always as (setweight(to_tsvector('english', left(content, 200000)), 'B')) stored
);
create index messages_conversation_idx on messages (conversation_id, created_at);
create index messages_search_idx on messages using gin (search);
