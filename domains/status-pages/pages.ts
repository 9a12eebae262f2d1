// Status pages' logic: the owner's pages made and changed in one transaction each, the public JSON of a page and
// the service a badge shows. A page shows of each service its name, state and uptime only
// (domains/health/uptime.ts gives nothing else).
import { hubError } from '../../lib/errors.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { dailyBars, uptimeOf } from '../health/uptime.ts';
import type { CreateStatusPage, UpdateStatusPage } from './schema.ts';
import {
  findPage,
  insertPage,
  lockPage,
  onPublicPage,
  setPageServices,
  slugTaken,
  updatePage,
} from './store.ts';

const barDays = 90;

/** Refuses a list naming a service that is not in the registry (a discovered candidate is not). */
async function assertServices(sql: Db, ids: string[]): Promise<void> {
  const known = await uptimeOf(sql, ids);
  const missing = ids.find((id) => !known.has(id));
  if (missing) throw hubError('SERVICE_NOT_FOUND', missing);
}

export async function pageOf(sql: Db, slug: string) {
  const page = await findPage(sql, slug);
  if (!page) throw hubError('STATUS_PAGE_NOT_FOUND', slug);
  return page;
}

export async function createPage(sql: Sql, body: CreateStatusPage) {
  await sql.begin(async (tx) => {
    await assertServices(tx, body.services ?? []);
    const id = await insertPage(tx, body);
    if (!id) throw hubError('STATUS_PAGE_SLUG_TAKEN', body.slug);
    await setPageServices(tx, id, body.services ?? []);
  });
  return pageOf(sql, body.slug);
}

/** Some fields of a page changed; `services`, when sent, replaces its list. */
export async function changePage(sql: Sql, slug: string, body: UpdateStatusPage) {
  const { services, ...change } = body;
  await sql.begin(async (tx) => {
    const page = await lockPage(tx, slug);
    if (!page) throw hubError('STATUS_PAGE_NOT_FOUND', slug);
    if (change.slug && (await slugTaken(tx, change.slug, page.id))) {
      throw hubError('STATUS_PAGE_SLUG_TAKEN', change.slug);
    }
    if (Object.keys(change).length > 0) await updatePage(tx, page.id, change);
    if (services) {
      await assertServices(tx, services);
      await setPageServices(tx, page.id, services);
    }
  });
  return pageOf(sql, body.slug ?? slug);
}

function overall(states: string[]): string {
  if (states.length === 0 || states.every((state) => state === 'up')) return 'up';
  if (states.some((state) => state === 'down')) return 'down';
  return 'partial';
}

/** A page's public JSON. A page not public is as absent as an unknown one to anyone but its owner. */
export async function publicStatus(sql: Db, slug: string, owner: boolean) {
  const page = await findPage(sql, slug);
  if (!page || (!page.public && !owner)) throw hubError('STATUS_PAGE_NOT_FOUND', slug);
  const [uptime, bars] = await Promise.all([
    uptimeOf(sql, page.services),
    dailyBars(sql, page.services, barDays),
  ]);
  const services = page.services.flatMap((id) => {
    const service = uptime.get(id);
    if (!service) return [];
    return [
      {
        id,
        name: service.name,
        state: service.enabled ? service.state : 'paused',
        uptime_24h: service.uptime_24h,
        uptime_30d: service.uptime_30d,
        days: bars.get(id) ?? [],
      },
    ];
  });
  return {
    slug: page.slug,
    title: page.title,
    description: page.description,
    public: page.public,
    state: overall(services.map((service) => service.state)),
    services,
    generated_at: new Date(),
  };
}

/** The service a badge shows: only one a public page lists (404 otherwise). */
export async function badgeService(sql: Db, serviceId: string) {
  const service = (await onPublicPage(sql, serviceId))
    ? (await uptimeOf(sql, [serviceId])).get(serviceId)
    : undefined;
  if (!service) throw hubError('BADGE_NOT_FOUND');
  return service;
}
