-- Tags on pages and references: what a Markdown file's front matter `tags` and a bookmark's folders become on
-- import, and what an export writes back. Searchable as names (weight A), like a document's tags.
alter table pages add column tags text[] not null default '{}';
alter table refs add column tags text[] not null default '{}';
