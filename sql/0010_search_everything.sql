-- Search covers every kind the owner writes, indexes whole texts, and keeps a word list for spelling hints.
--
-- Whole texts: bodies were cut at 200,000 characters before indexing. search_body_vector indexes the whole text;
-- only when a text's vector would pass PostgreSQL's tsvector size limit (1 MB of distinct words) does it index
-- the longest leading part that fits, so no text can make a write fail. Positions past 16,383 are stored as
-- 16,383 (PostgreSQL's limit), which only blurs phrase matching that deep into a text.
create function search_body_vector(config regconfig, body text) returns tsvector
language plpgsql immutable strict parallel safe as $$
declare
  cut integer := length(body);
begin
  loop
    begin
      return to_tsvector(config, left(body, cut));
    exception when program_limit_exceeded then
      cut := cut / 2;
    end;
  end loop;
end;
$$;

-- Weights: A for what names a row (titles, names, a ref's source and external id, a document's tags), B for
-- bodies and notes, C for the rest (URLs, a project's status, a resource's kind). Never monitoring or metadata
-- blobs, except a document's tags.
alter table pages alter column search set expression as (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(search_body_vector('english', body), 'B')
);
alter table refs alter column search set expression as (
  setweight(to_tsvector('english', title || ' ' || source || ' ' || external_id), 'A') ||
  setweight(search_body_vector('english', notes), 'B') ||
  setweight(to_tsvector('simple', coalesce(url, '')), 'C')
);
alter table source_docs alter column search set expression as (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(to_tsvector('english', coalesce(metadata -> 'tags', '[]'::jsonb)), 'A') ||
  setweight(search_body_vector('english', content), 'B') ||
  setweight(to_tsvector('simple', coalesce(url, '')), 'C')
);
alter table messages alter column search set expression as (
  setweight(search_body_vector('english', content), 'B')
);

alter table projects add column search tsvector generated always as (
  setweight(to_tsvector('english', name), 'A') ||
  setweight(search_body_vector('english', research_notes), 'B') ||
  setweight(to_tsvector('english', status), 'C')
) stored;
alter table tasks add column search tsvector generated always as (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(search_body_vector('english', notes), 'B')
) stored;
alter table resources add column search tsvector generated always as (
  setweight(to_tsvector('english', name), 'A') ||
  setweight(to_tsvector('english', kind), 'C') ||
  setweight(search_body_vector('english', notes), 'B')
) stored;
-- Kept in the row for ranking (see 0005_search_storage.sql).
alter table projects alter column search set storage main;
alter table tasks alter column search set storage main;
alter table resources alter column search set storage main;
create index projects_search_idx on projects using gin (search);
create index tasks_search_idx on tasks using gin (search);
create index resources_search_idx on resources using gin (search);

-- Headings: what weight A holds, indexed on its own. Above 10,000 matches, search ranks the matches whose heading
-- holds a query word (plus the newest matches) instead of every match: any heading hit outranks any body-only hit
-- of the same word, so the best results are among them. The expressions must stay identical to the ones in
-- domains/search/store.ts.
create index pages_heading_idx on pages using gin (to_tsvector('english', title));
create index source_docs_heading_idx on source_docs using gin (
  (to_tsvector('english', title) || to_tsvector('english', coalesce(metadata -> 'tags', '[]'::jsonb)))
);
create index refs_heading_idx on refs using gin (to_tsvector('english', title || ' ' || source || ' ' || external_id));
create index messages_created_idx on messages (created_at);

-- Spelling hints: every word the owner has written, as written (lower case, letters only, 3 to 40 of them),
-- matched by trigram similarity. Words are added as rows are written and never removed one by one: a hint is
-- only offered after checking it finds something in the caller's reach, so a word whose rows are gone is never
-- suggested. pg_trgm is a trusted extension: the database owner may create it.
create extension if not exists pg_trgm;
create table search_words (
  word text primary key
);
create index search_words_trgm_idx on search_words using gist (word gist_trgm_ops);
-- Completions of the word being typed (`like 'monitori%'`), whatever the database's collation.
create index search_words_prefix_idx on search_words (word text_pattern_ops);

-- Adds the words of the written rows. Statement-level on insert (a bulk load tokenises once, as one set), row-level
-- on update when the text changed. Sorted inserts, so two writers adding the same new words cannot deadlock.
create function search_words_add(body text) returns void language sql as $$
  insert into search_words (word)
  select distinct word from unnest(tsvector_to_array(to_tsvector('simple', body))) word
  where word ~ '^[[:alpha:]]{3,40}$'
  order by word
  on conflict do nothing
$$;

create function search_words_from_rows() returns trigger language plpgsql as $$
begin
  -- TG_ARGV[0]: the expression giving a row's searchable text, over the transition table new_rows.
  execute format(
    'insert into search_words (word)
     select distinct word from new_rows, unnest(tsvector_to_array(to_tsvector(''simple'', %s))) word
     where word ~ ''^[[:alpha:]]{3,40}$''
     order by word
     on conflict do nothing',
    tg_argv[0]);
  return null;
end;
$$;

create function search_words_from_row() returns trigger language plpgsql as $$
declare
  body text;
begin
  execute format('select %s from (select $1.*) new_rows', tg_argv[0]) into body using new;
  perform search_words_add(body);
  return null;
end;
$$;

create trigger pages_words after insert on pages referencing new table as new_rows
  for each statement execute function search_words_from_rows('title || '' '' || body');
create trigger pages_words_update after update of title, body on pages
  for each row when (old.title is distinct from new.title or old.body is distinct from new.body)
  execute function search_words_from_row('title || '' '' || body');
create trigger refs_words after insert on refs referencing new table as new_rows
  for each statement execute function search_words_from_rows('title || '' '' || notes || '' '' || source');
create trigger refs_words_update after update of title, notes, source on refs
  for each row when (old.title is distinct from new.title or old.notes is distinct from new.notes
    or old.source is distinct from new.source)
  execute function search_words_from_row('title || '' '' || notes || '' '' || source');
create trigger source_docs_words after insert on source_docs referencing new table as new_rows
  for each statement execute function search_words_from_rows(
    'title || '' '' || content || '' '' || coalesce(metadata ->> ''tags'', '''')');
create trigger source_docs_words_update after update of title, content, metadata on source_docs
  for each row when (old.title is distinct from new.title or old.content is distinct from new.content
    or old.metadata -> 'tags' is distinct from new.metadata -> 'tags')
  execute function search_words_from_row('title || '' '' || content || '' '' || coalesce(metadata ->> ''tags'', '''')');
create trigger messages_words after insert on messages referencing new table as new_rows
  for each statement execute function search_words_from_rows('content');
create trigger messages_words_update after update of content on messages
  for each row when (old.content is distinct from new.content)
  execute function search_words_from_row('content');
create trigger projects_words after insert on projects referencing new table as new_rows
  for each statement execute function search_words_from_rows('name || '' '' || research_notes');
create trigger projects_words_update after update of name, research_notes on projects
  for each row when (old.name is distinct from new.name or old.research_notes is distinct from new.research_notes)
  execute function search_words_from_row('name || '' '' || research_notes');
create trigger tasks_words after insert on tasks referencing new table as new_rows
  for each statement execute function search_words_from_rows('title || '' '' || notes');
create trigger tasks_words_update after update of title, notes on tasks
  for each row when (old.title is distinct from new.title or old.notes is distinct from new.notes)
  execute function search_words_from_row('title || '' '' || notes');
create trigger resources_words after insert on resources referencing new table as new_rows
  for each statement execute function search_words_from_rows('name || '' '' || kind || '' '' || notes');
create trigger resources_words_update after update of name, kind, notes on resources
  for each row when (old.name is distinct from new.name or old.kind is distinct from new.kind
    or old.notes is distinct from new.notes)
  execute function search_words_from_row('name || '' '' || kind || '' '' || notes');

-- The words already written.
select search_words_add(title || ' ' || body) from pages;
select search_words_add(title || ' ' || notes || ' ' || source) from refs;
select search_words_add(title || ' ' || content || ' ' || coalesce(metadata ->> 'tags', '')) from source_docs;
select search_words_add(content) from messages;
select search_words_add(name || ' ' || research_notes) from projects;
select search_words_add(title || ' ' || notes) from tasks;
select search_words_add(name || ' ' || kind || ' ' || notes) from resources;

-- The planner's estimate of a kind's matches (in a space, when given), from the column statistics: above 40,000
-- the search trusts it instead of counting, and it is the total of a kind with more than 10,000 matches (see
-- domains/search/store.ts). EXPLAIN plans with the values given, so the statistics of the query's words apply.
create function search_match_estimate(query tsquery, relation regclass, space uuid) returns bigint
language plpgsql volatile as $$
declare
  plan json;
begin
  if space is null then
    execute format('explain (format json) select from %s where search @@ $1', relation) into plan using query;
  else
    execute format('explain (format json) select from %s where search @@ $1 and space_id = $2', relation)
      into plan using query, space;
  end if;
  return (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
end;
$$;

-- 0009 indexed documents through source_doc_search; the expression above replaces it.
drop function if exists source_doc_search(text, text);
