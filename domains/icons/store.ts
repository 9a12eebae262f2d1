import type { Db } from '../../plugins/db.ts';
import type { IconType } from './svg.ts';

export interface IconSetRow {
  name: string;
  icon_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface IconInfoRow {
  name: string;
  type: IconType;
  size: number;
  sha256: string;
}

export interface IconFileRow {
  type: IconType;
  bytes: Buffer;
  sha256: string;
}

export interface NewIcon {
  name: string;
  type: IconType;
  bytes: Buffer;
  sha256: string;
}

/** Where an icon name lives: every set holding an icon of that name. */
export interface IconLocation {
  set_name: string;
  name: string;
  type: IconType;
  sha256: string;
}

export async function listIconSets(sql: Db): Promise<IconSetRow[]> {
  return sql<IconSetRow[]>`
    select s.name, s.created_at, s.updated_at, count(f.name)::int as icon_count
    from icon_sets s left join icon_files f on f.set_name = s.name
    group by s.name order by s.name`;
}

export async function findIconSet(sql: Db, name: string): Promise<IconSetRow | undefined> {
  const [row] = await sql<IconSetRow[]>`
    select s.name, s.created_at, s.updated_at, count(f.name)::int as icon_count
    from icon_sets s left join icon_files f on f.set_name = s.name
    where s.name = ${name}
    group by s.name`;
  return row;
}

export async function listIcons(sql: Db, setName: string): Promise<IconInfoRow[]> {
  return sql<IconInfoRow[]>`
    select name, type, octet_length(bytes) as size, sha256
    from icon_files where set_name = ${setName} order by name`;
}

export async function findIconFile(
  sql: Db,
  setName: string,
  name: string,
  type: IconType,
): Promise<IconFileRow | undefined> {
  const [row] = await sql<IconFileRow[]>`
    select type, bytes, sha256 from icon_files
    where set_name = ${setName} and name = ${name} and type = ${type}`;
  return row;
}

/** Every set icon's name, set and type (no bytes): the index icon lookups and the picker search use. */
export async function allIconLocations(sql: Db): Promise<IconLocation[]> {
  return sql<IconLocation[]>`select set_name, name, type, sha256 from icon_files order by set_name, name`;
}

export async function iconExists(sql: Db, setName: string, name: string): Promise<boolean> {
  const [row] = await sql`select 1 from icon_files where set_name = ${setName} and name = ${name}`;
  return row !== undefined;
}

/** Locks the set's row, if there is one, until the transaction ends. */
export async function lockIconSet(sql: Db, name: string): Promise<boolean> {
  const [row] = await sql`select 1 from icon_sets where name = ${name} for update`;
  return row !== undefined;
}

/** Creates the set, or with `replace` empties the existing one; false when it exists and `replace` is off. */
export async function createOrEmptyIconSet(sql: Db, name: string, replace: boolean): Promise<boolean> {
  const [created] = await sql`
    insert into icon_sets (name) values (${name}) on conflict (name) do nothing returning name`;
  if (created) return true;
  if (!replace) return false;
  await sql`delete from icon_files where set_name = ${name}`;
  await sql`update icon_sets set updated_at = now() where name = ${name}`;
  return true;
}

export async function insertIcons(sql: Db, setName: string, icons: NewIcon[]): Promise<void> {
  if (icons.length === 0) return;
  const rows = icons.map((icon) => ({ set_name: setName, ...icon }));
  // Batches keep each statement's parameter count well under PostgreSQL's 65,535.
  for (let i = 0; i < rows.length; i += 1000) {
    await sql`insert into icon_files ${sql(rows.slice(i, i + 1000), 'set_name', 'name', 'type', 'bytes', 'sha256')}`;
  }
}

/** Adds or, with `replace`, replaces one icon; false when the name is taken and `replace` is off. */
export async function putIcon(sql: Db, setName: string, icon: NewIcon, replace: boolean): Promise<boolean> {
  const [row] = replace
    ? await sql`
        insert into icon_files (set_name, name, type, bytes, sha256)
        values (${setName}, ${icon.name}, ${icon.type}, ${icon.bytes}, ${icon.sha256})
        on conflict (set_name, name) do update
          set type = excluded.type, bytes = excluded.bytes, sha256 = excluded.sha256, created_at = now()
        returning name`
    : await sql`
        insert into icon_files (set_name, name, type, bytes, sha256)
        values (${setName}, ${icon.name}, ${icon.type}, ${icon.bytes}, ${icon.sha256})
        on conflict (set_name, name) do nothing
        returning name`;
  if (row) await sql`update icon_sets set updated_at = now() where name = ${setName}`;
  return row !== undefined;
}

export async function deleteIconSet(sql: Db, name: string): Promise<boolean> {
  const rows = await sql`delete from icon_sets where name = ${name} returning name`;
  return rows.length > 0;
}
