-- Tags on apps, as pages and references have had since 0028 (a captured document keeps its tags in metadata.tags,
-- which its search vector reads). Tags are matched regardless of case, so lists filter on lower(tag).
alter table apps add column tags text[] not null default '{}';

-- Read state of captures: null while the owner has not opened it in the inbox.
alter table captures add column read_at timestamptz;
create index captures_unread on captures (created_at desc) where read_at is null;
