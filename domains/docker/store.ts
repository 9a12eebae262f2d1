// Docker discovery's candidates in SQL. A sync writes what the labels propose and the container's state; it never
// touches `app_id` or `dismissed_at`, which only the owner's promote and dismiss set.
import type { Db } from '../../plugins/db.ts';
import type { Candidate } from './candidates.ts';

/** A candidate as a sync writes it: what its labels propose (the icon mapped to an iconRef) and its state. */
export type SyncedCandidate = Omit<Candidate, 'icon_label'> & { icon: string | null };

export interface CandidateRow extends SyncedCandidate {
  id: string;
  app_id: string | null;
  dismissed: boolean;
  seen_at: Date;
  created_at: Date;
  updated_at: Date;
}

const columns = (sql: Db) => sql`
  id, key, container_id, container_name, image, source, name, href, description, group_name as "group", icon, state,
  health, app_id, dismissed_at is not null as dismissed, seen_at, created_at, updated_at`;

/** Writes a candidate seen now, by its key: what its labels propose and its container's state. */
export async function saveCandidate(sql: Db, candidate: SyncedCandidate): Promise<void> {
  const c = candidate;
  await sql`
    insert into docker_candidates (key, container_id, container_name, image, source, name, href, description,
      group_name, icon, state, health)
    values (${c.key}, ${c.container_id}, ${c.container_name}, ${c.image}, ${c.source}, ${c.name}, ${c.href},
      ${c.description}, ${c.group}, ${c.icon}, ${c.state}, ${c.health})
    on conflict (key) do update set container_id = excluded.container_id, container_name = excluded.container_name,
      image = excluded.image, source = excluded.source, name = excluded.name, href = excluded.href,
      description = excluded.description, group_name = excluded.group_name, icon = excluded.icon,
      state = excluded.state, health = excluded.health, seen_at = now(), updated_at = now()`;
}

/**
 * The candidates whose container is gone: forgotten, unless promoted (their app's tile says `removed`) or dismissed
 * (so the dismissal holds if the container comes back). Answers how many were forgotten.
 */
export async function settleMissing(sql: Db, seenKeys: string[]): Promise<number> {
  const forgotten = await sql`
    delete from docker_candidates
    where not (key = any(${seenKeys}::text[])) and app_id is null and dismissed_at is null`;
  await sql`
    update docker_candidates set state = 'removed', health = null, updated_at = now()
    where not (key = any(${seenKeys}::text[])) and state <> 'removed'`;
  return forgotten.count;
}

export async function listCandidates(
  sql: Db,
  filter: { dismissed: boolean; limit: number; offset: number },
): Promise<{ items: CandidateRow[]; total: number }> {
  const where = filter.dismissed ? sql`dismissed_at is not null` : sql`dismissed_at is null`;
  const items = await sql<CandidateRow[]>`
    select ${columns(sql)} from docker_candidates where ${where}
    order by (app_id is not null), group_name nulls last, name, key
    limit ${filter.limit} offset ${filter.offset}`;
  const [{ total }] = await sql<{ total: number }[]>`
    select count(*)::int as total from docker_candidates where ${where}`;
  return { items, total };
}

export async function findCandidate(sql: Db, id: string, lock = false): Promise<CandidateRow | undefined> {
  const [row] = await sql<CandidateRow[]>`
    select ${columns(sql)} from docker_candidates where id = ${id} ${lock ? sql`for update` : sql``}`;
  return row;
}

/** Links the candidate to the app made from it; promoting undoes a dismissal. */
export async function markPromoted(sql: Db, id: string, appId: string): Promise<void> {
  await sql`
    update docker_candidates set app_id = ${appId}, dismissed_at = null, updated_at = now() where id = ${id}`;
}

export async function dismissCandidate(sql: Db, id: string): Promise<boolean> {
  const rows = await sql`
    update docker_candidates set dismissed_at = coalesce(dismissed_at, now()), updated_at = now()
    where id = ${id}`;
  return rows.count > 0;
}
