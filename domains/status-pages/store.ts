import type { Db } from '../../plugins/db.ts';
import type { CreateStatusPage, StatusPage, UpdateStatusPage } from './schema.ts';

const selectPages = (sql: Db) => sql`
  select p.id, p.slug, p.title, p.description, p.public, p.created_at, p.updated_at,
    coalesce((select array_agg(s.service_id order by s.position) from status_page_services s where s.page_id = p.id),
      '{}') as services
  from status_pages p`;

export async function listPages(sql: Db): Promise<StatusPage[]> {
  return sql<StatusPage[]>`${selectPages(sql)} order by p.slug`;
}

export async function findPage(sql: Db, slug: string): Promise<StatusPage | undefined> {
  const [row] = await sql<StatusPage[]>`${selectPages(sql)} where p.slug = ${slug}`;
  return row;
}

/** A new page, or undefined when its slug is taken. */
export async function insertPage(sql: Db, page: CreateStatusPage): Promise<string | undefined> {
  const [row] = await sql<{ id: string }[]>`
    insert into status_pages ${sql({
      slug: page.slug,
      title: page.title,
      description: page.description ?? null,
      public: page.public ?? false,
    })}
    on conflict (slug) do nothing returning id`;
  return row?.id;
}

export async function lockPage(sql: Db, slug: string): Promise<{ id: string } | undefined> {
  const [row] = await sql<{ id: string }[]>`select id from status_pages where slug = ${slug} for update`;
  return row;
}

export async function slugTaken(sql: Db, slug: string, exceptId: string): Promise<boolean> {
  const [row] = await sql`select 1 from status_pages where slug = ${slug} and id <> ${exceptId}`;
  return row !== undefined;
}

export async function updatePage(
  sql: Db,
  id: string,
  change: Omit<UpdateStatusPage, 'services'>,
): Promise<void> {
  const values = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
  await sql`update status_pages set ${sql(values)}, updated_at = now() where id = ${id}`;
}

export async function setPageServices(sql: Db, id: string, serviceIds: string[]): Promise<void> {
  await sql`delete from status_page_services where page_id = ${id}`;
  if (serviceIds.length === 0) return;
  await sql`
    insert into status_page_services ${sql(
      serviceIds.map((serviceId, position) => ({ page_id: id, service_id: serviceId, position })),
    )}`;
  await sql`update status_pages set updated_at = now() where id = ${id}`;
}

export async function deletePage(sql: Db, slug: string): Promise<boolean> {
  const result = await sql`delete from status_pages where slug = ${slug}`;
  return result.count > 0;
}

/** Whether a public status page lists the service (its badges are served only then). */
export async function onPublicPage(sql: Db, serviceId: string): Promise<boolean> {
  const [row] = await sql`
    select 1 from status_page_services s join status_pages p on p.id = s.page_id
    where s.service_id = ${serviceId} and p.public limit 1`;
  return row !== undefined;
}
