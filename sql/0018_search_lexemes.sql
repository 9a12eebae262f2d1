-- The word being typed is matched as the indexed words it starts, when they are few (domains/search/store.ts):
-- the full-text index then reads each word's rows directly instead of gathering every prefixed word's rows first.
--
-- search_lexemes holds every lexeme of every search vector, added by triggers as rows are written. Like
-- search_words, a lexeme is never removed one by one: one whose rows are gone matches nothing and costs one index
-- lookup. The key is C-collated, so the lexemes starting with a prefix are a range of it.
create table search_lexemes (
  lexeme text collate "C" primary key
);

-- Statement-level on insert (a bulk load is one set), row-level on update when the vector changed. Sorted inserts,
-- so two writers adding the same new lexemes cannot deadlock.
create function search_lexemes_insert() returns trigger language plpgsql as $$
begin
  insert into search_lexemes (lexeme)
  select distinct l from new_rows n cross join lateral unnest(tsvector_to_array(n.search)) l
  order by l
  on conflict do nothing;
  return null;
end;
$$;

create function search_lexemes_update() returns trigger language plpgsql as $$
begin
  insert into search_lexemes (lexeme)
  select l from unnest(tsvector_to_array(new.search)) l
  order by l
  on conflict do nothing;
  return null;
end;
$$;

do $$
declare
  kind text;
begin
  foreach kind in array array['pages', 'projects', 'tasks', 'resources', 'refs', 'source_docs', 'messages'] loop
    execute format('create trigger %I after insert on %I referencing new table as new_rows
      for each statement execute function search_lexemes_insert()', kind || '_lexemes', kind);
    execute format('create trigger %I after update on %I for each row
      when (old.search is distinct from new.search) execute function search_lexemes_update()',
      kind || '_lexemes_update', kind);
    execute format('insert into search_lexemes (lexeme)
      select distinct l from %I p cross join lateral unnest(tsvector_to_array(p.search)) l
      order by l on conflict do nothing', kind);
  end loop;
end;
$$;
