-- Broad searches rank from a list instead of from every match.
--
-- search_headings holds, for each row of the kinds with a heading, every word of its heading (weight A: titles,
-- names, a document's tags, a ref's source and external id) with the row's ts_rank for that word alone. Any
-- heading hit outranks any body-only hit of the same word, so the first rows of a word here, in rank order, are
-- that word's exact top hits: a broad query ranks those (for each of its words) instead of all of its matches (see
-- domains/search/store.ts). Kept by triggers; replaces the heading GIN indexes of 0010.
create table search_headings (
  kind text not null,
  id uuid not null,
  space_id uuid not null,
  lexeme text not null,
  rank real not null
);
create index search_headings_rank_idx on search_headings (kind, lexeme, rank desc, id) include (space_id);
create index search_headings_id_idx on search_headings (id);

-- The heading words of a search vector and the vector's rank for each alone. A lexeme is quoted for tsquery input
-- (quotes doubled, backslashes escaped), so any lexeme round-trips.
create function search_heading_words(search tsvector) returns table (lexeme text, rank real)
language sql immutable strict parallel safe as $$
  select u.lexeme,
    ts_rank(search, ('''' || replace(replace(u.lexeme, '\', '\\'), '''', '''''') || '''')::tsquery)
  from unnest(search) u
  where 'A' = any(u.weights)
$$;

-- Statement-level on insert (a bulk load is one set), row-level on update when the vector or the space changed,
-- statement-level on delete (a deleted space takes its rows in one statement). The kind is the table's name.
create function search_headings_insert() returns trigger language plpgsql as $$
begin
  insert into search_headings (kind, id, space_id, lexeme, rank)
  select tg_table_name, n.id, n.space_id, h.lexeme, h.rank
  from new_rows n cross join lateral search_heading_words(n.search) h;
  return null;
end;
$$;

create function search_headings_update() returns trigger language plpgsql as $$
begin
  delete from search_headings where kind = tg_table_name and id = old.id;
  insert into search_headings (kind, id, space_id, lexeme, rank)
  select tg_table_name, new.id, new.space_id, h.lexeme, h.rank from search_heading_words(new.search) h;
  return null;
end;
$$;

create function search_headings_delete() returns trigger language plpgsql as $$
begin
  delete from search_headings where kind = tg_table_name and id in (select id from old_rows);
  return null;
end;
$$;

do $$
declare
  kind text;
begin
  foreach kind in array array['pages', 'projects', 'tasks', 'resources', 'refs', 'source_docs'] loop
    execute format('create trigger %I after insert on %I referencing new table as new_rows
      for each statement execute function search_headings_insert()', kind || '_headings', kind);
    execute format('create trigger %I after update on %I for each row
      when (old.search is distinct from new.search or old.space_id is distinct from new.space_id)
      execute function search_headings_update()', kind || '_headings_update', kind);
    execute format('create trigger %I after delete on %I referencing old table as old_rows
      for each statement execute function search_headings_delete()', kind || '_headings_delete', kind);
    execute format('insert into search_headings (kind, id, space_id, lexeme, rank)
      select %L, p.id, p.space_id, h.lexeme, h.rank from %I p cross join lateral search_heading_words(p.search) h',
      kind, kind);
  end loop;
end;
$$;

drop index pages_heading_idx;
drop index source_docs_heading_idx;
drop index refs_heading_idx;

-- How many rows the GIN index holds for a query (unscoped): the count of the row ids its posting lists give,
-- read from EXPLAIN ANALYZE of a one-row fetch, so no table rows beyond the first are read. Counts rows not yet
-- vacuumed away, and, for a query the index cannot decide alone (a phrase, an excluded word), rows the table
-- would reject: an upper bound, exact for plain words. The search asks it only near its threshold (tens of
-- thousands of ids at most).
create function search_index_count(query tsquery, relation regclass) returns bigint
language plpgsql volatile set enable_seqscan = off as $$
declare
  plan jsonb;
begin
  execute format(
    'explain (analyze, timing off, summary off, format json) select 1 from %s where search @@ $1 limit 1',
    relation) into plan using query;
  return coalesce(
    jsonb_path_query_first(plan, 'strict $.**?(@."Node Type" == "Bitmap Index Scan")."Actual Rows"')::numeric,
    0)::bigint;
end;
$$;
