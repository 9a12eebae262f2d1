-- Feeds: RSS, Atom and JSON Feed subscriptions polled by feeds.poll, and the items read from them.

create table feeds (
  id uuid primary key default gen_random_uuid(),
  url text not null check (url ~ '^https?://' and length(url) <= 4096),
  title text not null default '' check (length(title) <= 500),
  space_id uuid not null references spaces (id) on delete cascade,
  -- Trimmed, case-insensitively unique, at most 32 of at most 64 characters (checked by the API).
  tags text[] not null default '{}' check (cardinality(tags) <= 32),
  interval_minutes integer not null default 60 check (interval_minutes between 5 and 10080),
  capture text not null default 'none' check (capture in ('all', 'none')),
  enabled boolean not null default true,
  -- The validators of the last answer, sent back as If-None-Match and If-Modified-Since.
  etag text,
  last_modified text,
  -- When the feed is next due; a failure pushes it back further each time (failures counts them in a row).
  next_poll_at timestamptz not null default now(),
  last_polled_at timestamptz,
  error text,
  failures integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint feeds_space_url_key unique (space_id, url)
);
create index feeds_due_idx on feeds (next_poll_at) where enabled;

create table feed_items (
  id uuid primary key default gen_random_uuid(),
  feed_id uuid not null references feeds (id) on delete cascade,
  -- The feed's space, kept here for search and scoped reads.
  space_id uuid not null references spaces (id) on delete cascade,
  -- The item's id in the feed (guid, Atom id, JSON Feed id), or its link when it has none.
  guid text not null check (length(guid) between 1 and 2000),
  url text check (length(url) <= 4096),
  title text not null default '' check (length(title) <= 500),
  summary text not null default '' check (length(summary) <= 20000),
  published_at timestamptz,
  tags text[] not null default '{}' check (cardinality(tags) <= 32),
  read_at timestamptz,
  capture_id uuid references captures (id) on delete set null,
  created_at timestamptz not null default now(),
  search tsvector generated always as (
    setweight(to_tsvector('english', title), 'A') ||
    setweight(to_tsvector('english', summary), 'B') ||
    setweight(to_tsvector('simple', coalesce(url, '')), 'C')
  ) stored,
  constraint feed_items_feed_guid_key unique (feed_id, guid)
);
create index feed_items_feed_idx on feed_items (feed_id, published_at desc nulls last, created_at desc);
create index feed_items_unread_idx on feed_items (feed_id) where read_at is null;
create index feed_items_space_idx on feed_items (space_id);
create index feed_items_search_idx on feed_items using gin (search);

-- Feed items are searchable like the knowledge kinds (domains/search): spelling hints and prefix completions.
create trigger feed_items_words after insert on feed_items referencing new table as new_rows
  for each statement execute function search_words_from_rows('title || '' '' || summary');
create trigger feed_items_lexemes after insert on feed_items referencing new table as new_rows
  for each statement execute function search_lexemes_insert();
create trigger feed_items_lexemes_update after update on feed_items for each row
  when (old.search is distinct from new.search) execute function search_lexemes_update();
