-- Tags on apps, as pages and references have had since 0028 (a captured document keeps its tags in metadata.tags,
-- which its search vector reads). Tags are matched regardless of case: lists filter on lower(tag).
alter table apps add column tags text[] not null default '{}';
