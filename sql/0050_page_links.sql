-- Links between pages: each `[[Page title]]` (or `[[Page title|shown text]]`) in a page's body, kept by the page
-- write path on every create and edit. A link names its target by title and resolves to the page of that title in
-- the linking page's space when read, so a link written before its target exists starts working once it does, and
-- restoring a page from the trash brings its links back with it (the foreign key cascades).
create table page_links (
  from_page uuid not null references pages (id) on delete cascade,
  to_title text not null check (length(to_title) between 1 and 500),
  primary key (from_page, to_title)
);
-- Titles match without regard to case, as a reader types them.
create index page_links_title_idx on page_links (lower(to_title));
create index pages_space_title_idx on pages (space_id, lower(title));

-- Pages written before links existed get theirs now.
insert into page_links (from_page, to_title)
select distinct p.id, btrim(m[1])
from pages p, regexp_matches(p.body, '\[\[([^\[\]|\n]+)(?:\|[^\[\]\n]*)?\]\]', 'g') as m
where btrim(m[1]) <> '' and length(btrim(m[1])) <= 500
on conflict do nothing;
