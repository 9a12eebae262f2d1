// Layouts per owner key: '' for the owner's bearer token, the lower-cased email for an access-proxy owner.
import type { Db } from '../../plugins/db.ts';
import type { Layout } from './schema.ts';

export interface LayoutRow {
  owner_key: string;
  layout: Layout;
  revision: number;
}

/** The layouts of these keys that exist. */
export async function findLayouts(sql: Db, keys: string[]): Promise<LayoutRow[]> {
  return sql<LayoutRow[]>`
    select owner_key, layout, revision from dashboard_layouts where owner_key = any(${keys})`;
}

/** Serialises writers of one owner's layout until the transaction ends (the row may not exist yet). */
export async function lockLayout(tx: Db, key: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext(${`dashboard_layout:${key}`}))`;
}

export async function saveLayout(tx: Db, key: string, layout: Layout): Promise<LayoutRow> {
  const [row] = await tx<LayoutRow[]>`
    insert into dashboard_layouts (owner_key, layout) values (${key}, ${tx.json(layout as never)})
    on conflict (owner_key) do update
      set layout = excluded.layout, revision = dashboard_layouts.revision + 1, updated_at = now()
    returning owner_key, layout, revision`;
  return row;
}

/** The layouts holding sealed custom-card headers (the key check and rotation open them). */
export async function layoutsWithSealedHeaders(
  sql: Db,
  options: { lock: boolean },
): Promise<{ owner_key: string; layout: Layout }[]> {
  return sql<{ owner_key: string; layout: Layout }[]>`
    select owner_key, layout from dashboard_layouts
    where exists (
      select 1 from jsonb_array_elements(layout->'cards') as card
      where card->>'type' = 'custom' and card->'config' ? 'headers')
    order by owner_key ${options.lock ? sql`for update` : sql``}`;
}

/** A layout with its headers sealed again: the same layout, so its revision (its ETag) stays. */
export async function replaceLayoutHeaders(sql: Db, ownerKey: string, layout: Layout): Promise<void> {
  await sql`update dashboard_layouts set layout = ${sql.json(layout as never)} where owner_key = ${ownerKey}`;
}
