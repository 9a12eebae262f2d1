// Resources and their dependency graph. `contextColumns` is the one allow-list of what may leave towards agents
// (the context tool and agent reads): monitoring and metadata blobs stay with the owner.

import type { PendingQuery, Row } from 'postgres';
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';

export const contextColumns = [
  'id',
  'space_id',
  'name',
  'kind',
  'host',
  'notes',
  'created_at',
  'updated_at',
] as const;
const ownerColumns = [...contextColumns, 'monitoring', 'metadata'];

/**
 * What a caller sees: every column (the owner) or the allow-listed ones (agents, the context tool); `within`, a
 * scoped agent's space, keeps a dependency on a resource elsewhere out of sight.
 */
export interface ResourceView {
  columns: 'owner' | 'context';
  within: string | null;
}

export const ownerView: ResourceView = { columns: 'owner', within: null };

export interface ContextResource {
  id: string;
  space_id: string;
  name: string;
  kind: string;
  host: string | null;
  notes: string;
  created_at: Date;
  updated_at: Date;
  /** Ids of the resources this one depends on. */
  depends_on: string[];
}

export interface ResourceRow extends ContextResource {
  monitoring: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** A resource reduced to the allow-listed columns and its dependency ids. */
export function toContext(row: ContextResource): ContextResource {
  const picked = Object.fromEntries(contextColumns.map((column) => [column, row[column]]));
  return { ...picked, depends_on: row.depends_on } as ContextResource;
}

function selectList(sql: Db, view: ResourceView) {
  return sql`${sql(view.columns === 'owner' ? ownerColumns : [...contextColumns])},
    array(select d.depends_on_id from resource_dependencies d
          where d.resource_id = resources.id ${inSpace(sql, view, sql`d.depends_on_id`)}
          order by d.depends_on_id) as depends_on`;
}

/** Keeps resources outside the view's space out: `and <id> in (the space's resources)`, or nothing. */
function inSpace(sql: Db, view: ResourceView, id: PendingQuery<Row[]>) {
  return view.within === null
    ? sql``
    : sql`and ${id} in (select o.id from resources o where o.space_id = ${view.within})`;
}

export async function findResource(
  sql: Db,
  id: string,
  view: ResourceView = ownerView,
): Promise<ResourceRow | undefined> {
  const [row] = await sql<ResourceRow[]>`select ${selectList(sql, view)} from resources where id = ${id}`;
  return row;
}

export async function lockResource(sql: Db, id: string): Promise<ResourceRow | undefined> {
  const [row] = await sql<ResourceRow[]>`
    select ${selectList(sql, ownerView)} from resources where id = ${id} for update`;
  return row;
}

export async function listResources(
  sql: Db,
  filter: { spaceId?: string; kind?: string; limit: number; offset: number },
  view: ResourceView,
) {
  const where = sql`where true
    ${filter.spaceId ? sql`and space_id = ${filter.spaceId}` : sql``}
    ${filter.kind ? sql`and kind = ${filter.kind}` : sql``}`;
  return listPage<ResourceRow>(
    sql,
    {
      select: sql`${selectList(sql, view)}`,
      from: sql`from resources ${where}`,
      orderBy: sql`lower(name), id`,
    },
    filter,
  );
}

/** Every resource of a space (or of all spaces) for the agent context tool: allow-listed columns only. */
export async function listResourcesForContext(
  sql: Db,
  spaceId: string | null,
  view: ResourceView,
): Promise<ContextResource[]> {
  return sql<ContextResource[]>`
    select ${selectList(sql, view)} from resources
    ${spaceId ? sql`where space_id = ${spaceId}` : sql``}
    order by lower(name), id`;
}

export interface NewResource {
  space_id: string;
  name: string;
  kind: string;
  host: string | null;
  notes: string;
  monitoring: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

export async function insertResource(sql: Db, resource: NewResource): Promise<ResourceRow> {
  const [{ id }] = await sql<{ id: string }[]>`
    insert into resources (space_id, name, kind, host, notes, monitoring, metadata)
    values (${resource.space_id}, ${resource.name}, ${resource.kind}, ${resource.host}, ${resource.notes},
            ${sql.json(resource.monitoring as never)}, ${sql.json(resource.metadata as never)})
    returning id`;
  return (await findResource(sql, id)) as ResourceRow;
}

export async function updateResource(
  sql: Db,
  id: string,
  patch: Partial<Omit<NewResource, 'space_id'>>,
): Promise<ResourceRow | undefined> {
  const fields: Record<string, unknown> = { ...patch };
  if (patch.monitoring) fields.monitoring = sql.json(patch.monitoring as never);
  if (patch.metadata) fields.metadata = sql.json(patch.metadata as never);
  if (Object.keys(fields).length > 0) {
    await sql`update resources set ${sql(fields)}, updated_at = now() where id = ${id}`;
  }
  return findResource(sql, id);
}

export async function deleteResource(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from resources where id = ${id}`;
  return result.count > 0;
}

/** The resources `id` depends on, in the requested view (a scoped view shows only those of its space). */
export async function listDependencies(
  sql: Db,
  id: string,
  page: { limit: number; offset: number },
  view: ResourceView,
) {
  const where = sql`where id in (select depends_on_id from resource_dependencies where resource_id = ${id})
    ${inSpace(sql, view, sql`id`)}`;
  return listPage<ResourceRow>(
    sql,
    {
      select: sql`${selectList(sql, view)}`,
      from: sql`from resources ${where}`,
      orderBy: sql`lower(name), id`,
    },
    page,
  );
}

/** Advisory-lock class of dependency wiring: one graph, one lock, so two adds cannot close a cycle together. */
const dependencyLockClass = 3_002;

export interface DependencyRow {
  resource_id: string;
  depends_on_id: string;
  created_at: Date;
}

/**
 * Adds `resourceId -> dependsOnId`. Refuses (without writing) when either resource is missing, when the edge
 * points at itself, already exists, or would close a cycle.
 */
export async function addDependency(
  sql: Db,
  resourceId: string,
  dependsOnId: string,
): Promise<DependencyRow | 'missing' | 'self' | 'exists' | 'cycle'> {
  if (resourceId === dependsOnId) return 'self';
  await sql`select pg_advisory_xact_lock(${dependencyLockClass}, 0)`;
  const found = await sql`select id from resources where id in (${resourceId}, ${dependsOnId}) for key share`;
  if (found.length < 2) return 'missing';
  // A path dependsOnId -> ... -> resourceId already exists: the new edge would close it.
  const [{ cycle }] = await sql<{ cycle: boolean }[]>`
    with recursive reach as (
      select depends_on_id as id from resource_dependencies where resource_id = ${dependsOnId}
      union
      select d.depends_on_id from resource_dependencies d join reach on d.resource_id = reach.id
    )
    select exists (select 1 from reach where id = ${resourceId}) as cycle`;
  if (cycle) return 'cycle';
  const [row] = await sql<DependencyRow[]>`
    insert into resource_dependencies (resource_id, depends_on_id) values (${resourceId}, ${dependsOnId})
    on conflict do nothing
    returning resource_id, depends_on_id, created_at`;
  return row ?? 'exists';
}

export async function removeDependency(sql: Db, resourceId: string, dependsOnId: string): Promise<boolean> {
  const result = await sql`
    delete from resource_dependencies where resource_id = ${resourceId} and depends_on_id = ${dependsOnId}`;
  return result.count > 0;
}
