// Versions of the entities the write registry edits (sql/0026: a column raised once per changing transaction).
// The table names are fixed here, never taken from input.
import type { Db } from '../../plugins/db.ts';

const tables = {
  page: 'pages',
  project: 'projects',
  task: 'tasks',
  ref: 'refs',
  resource: 'resources',
  source_doc: 'source_docs',
} as const;

/** An entity type whose rows carry a version. */
export type VersionedType = keyof typeof tables;

export function isVersioned(type: string): type is VersionedType {
  return Object.hasOwn(tables, type);
}

export async function entityVersion(sql: Db, type: VersionedType, id: string): Promise<number | undefined> {
  const [row] = await sql<{ version: number }[]>`
    select version from ${sql(tables[type])} where id = ${id}`;
  return row?.version;
}

/**
 * The version the row had before this transaction changed it: its version, less the one raise this transaction
 * made (if it made one). After a write holding the row lock, anything else means another write came in between.
 */
export async function versionBeforeThisTransaction(
  sql: Db,
  type: VersionedType,
  id: string,
): Promise<number | undefined> {
  const [row] = await sql<{ version: number }[]>`
    select version - (version_xact is not distinct from pg_current_xact_id_if_assigned())::int as version
    from ${sql(tables[type])} where id = ${id}`;
  return row?.version;
}

/** The version and the named fields of a row as they are now (the row's own columns, as JSON). */
export async function entityFields(
  sql: Db,
  type: VersionedType,
  id: string,
  fields: string[],
): Promise<{ version: number; fields: Record<string, unknown> } | undefined> {
  const [row] = await sql<{ version: number; fields: Record<string, unknown> }[]>`
    select t.version, coalesce((select jsonb_object_agg(key, value) from jsonb_each(to_jsonb(t))
                                where key = any(${fields}::text[])), '{}') as fields
    from ${sql(tables[type])} t where t.id = ${id}`;
  return row;
}

/** Who writes in this transaction, as the page-history trigger (sql/0026) records it. */
export type WriteAuthor =
  | { kind: 'owner' }
  | { kind: 'agent'; agent_id: string }
  | { kind: 'approval'; agent_id: string | null; pending_change_id: string };

/** Names the writer for the rest of the transaction (a transaction-local setting). */
export async function setWriteAuthor(sql: Db, author: WriteAuthor): Promise<void> {
  await sql`select set_config('hub.write_author', ${JSON.stringify(author)}, true)`;
}
