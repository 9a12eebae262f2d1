// Status pages: the owner lists monitored services on a page, and a public page is served to anyone, showing of
// each service its name, state and uptime only (domains/health/uptime.ts gives nothing else). Badges of a service
// are served while a public page lists it.
//   POST   /api/status-pages                      owner: make a page (201); a slug taken is 409
//   GET    /api/status-pages                      owner: every page
//   GET    /api/status-pages/:slug                owner
//   PATCH  /api/status-pages/:slug                owner: change some fields (services replaces the list)
//   DELETE /api/status-pages/:slug                owner
//   GET    /api/status/:slug                      public: the page's JSON (a page not public: 404 but to the owner)
//   GET    /api/badge/:service_id/status.svg      public: the service's state as a badge
//   GET    /api/badge/:service_id/uptime.svg      public: its uptime over ?window=24h|7d|30d as a badge
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly, publicAccess } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { dailyBars, uptimeOf } from '../health/uptime.ts';
import { badge, stateColour, uptimeColour } from './badge.ts';
import {
  BadgeParams,
  CreateStatusPage,
  PublicStatus,
  SlugParams,
  StatusPage,
  StatusPageList,
  UpdateStatusPage,
  UptimeBadgeQuery,
} from './schema.ts';
import {
  deletePage,
  findPage,
  insertPage,
  listPages,
  lockPage,
  onPublicPage,
  setPageServices,
  slugTaken,
  updatePage,
} from './store.ts';

const tags = ['status pages'];
const barDays = 90;

/** Refuses a list naming a service that is not in the registry (a discovered candidate is not). */
async function assertServices(sql: Db, ids: string[]): Promise<void> {
  const known = await uptimeOf(sql, ids);
  const missing = ids.find((id) => !known.has(id));
  if (missing) throw hubError('SERVICE_NOT_FOUND', missing);
}

async function pageOf(sql: Db, slug: string) {
  const page = await findPage(sql, slug);
  if (!page) throw hubError('STATUS_PAGE_NOT_FOUND', slug);
  return page;
}

function overall(states: string[]): string {
  if (states.length === 0 || states.every((state) => state === 'up')) return 'up';
  if (states.some((state) => state === 'down')) return 'down';
  return 'partial';
}

function svg(reply: FastifyReply, body: string) {
  return reply
    .type('image/svg+xml; charset=utf-8')
    .header('cache-control', 'public, max-age=60')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .header('x-content-type-options', 'nosniff')
    .send(body);
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  async function publicStatus(slug: string, owner: boolean) {
    const page = await findPage(app.sql, slug);
    // A page not public is as absent as an unknown one to anyone but its owner.
    if (!page || (!page.public && !owner)) throw hubError('STATUS_PAGE_NOT_FOUND', slug);
    const [uptime, bars] = await Promise.all([
      uptimeOf(app.sql, page.services),
      dailyBars(app.sql, page.services, barDays),
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

  async function badgeService(serviceId: string) {
    const service = (await onPublicPage(app.sql, serviceId))
      ? (await uptimeOf(app.sql, [serviceId])).get(serviceId)
      : undefined;
    if (!service) throw hubError('BADGE_NOT_FOUND');
    return service;
  }

  await app.register(
    publicAccess(async (open) => {
      open.get(
        '/status/:slug',
        {
          schema: {
            tags,
            summary: 'A public status page: each listed service’s name, state and uptime',
            description:
              'No credentials needed. Shows nothing of how a service is checked. A page not public (or no page) ' +
              'is 404, except to the owner, who may preview it.',
            params: SlugParams,
            response: { 200: PublicStatus, ...errors(400, 404, 429) },
          },
        },
        async (request) => publicStatus(request.params.slug, request.principal?.kind === 'owner'),
      );

      open.get(
        '/badge/:service_id/status.svg',
        {
          schema: {
            tags,
            summary: 'A badge of a service’s state (services on a public status page only)',
            params: BadgeParams,
            produces: ['image/svg+xml'],
            response: { 200: Type.String({ description: 'image/svg+xml' }), ...errors(400, 404, 429) },
          },
        },
        async (request, reply) => {
          const service = await badgeService(request.params.service_id);
          const state = service.enabled ? service.state : 'paused';
          return svg(reply, badge(service.name, state, stateColour(state)));
        },
      );

      open.get(
        '/badge/:service_id/uptime.svg',
        {
          schema: {
            tags,
            summary: 'A badge of a service’s uptime (services on a public status page only)',
            params: BadgeParams,
            querystring: UptimeBadgeQuery,
            produces: ['image/svg+xml'],
            response: { 200: Type.String({ description: 'image/svg+xml' }), ...errors(400, 404, 429) },
          },
        },
        async (request, reply) => {
          const service = await badgeService(request.params.service_id);
          const window = request.query.window;
          const uptime = { '24h': service.uptime_24h, '7d': service.uptime_7d, '30d': service.uptime_30d }[
            window
          ];
          const value = uptime === null ? 'no data' : `${Number(uptime.toFixed(2))}%`;
          return svg(reply, badge(`uptime ${window}`, value, uptimeColour(uptime)));
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.post(
        '/status-pages',
        {
          schema: {
            tags,
            summary: 'Make a status page',
            body: CreateStatusPage,
            response: { 201: StatusPage, ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request, reply) => {
          const body = request.body;
          await app.sql.begin(async (tx) => {
            await assertServices(tx, body.services ?? []);
            const id = await insertPage(tx, body);
            if (!id) throw hubError('STATUS_PAGE_SLUG_TAKEN', body.slug);
            await setPageServices(tx, id, body.services ?? []);
          });
          return reply.status(201).send(await pageOf(app.sql, body.slug));
        },
      );

      owner.get(
        '/status-pages',
        {
          schema: {
            tags,
            summary: 'Every status page',
            response: { 200: StatusPageList, ...errors(401, 403) },
          },
        },
        async () => {
          const items = await listPages(app.sql);
          return { items, total: items.length };
        },
      );

      owner.get(
        '/status-pages/:slug',
        {
          schema: {
            tags,
            summary: 'A status page',
            params: SlugParams,
            response: { 200: StatusPage, ...errors(400, 401, 403, 404) },
          },
        },
        async (request) => pageOf(app.sql, request.params.slug),
      );

      owner.patch(
        '/status-pages/:slug',
        {
          schema: {
            tags,
            summary: 'Change some fields of a status page (services replaces its list)',
            params: SlugParams,
            body: UpdateStatusPage,
            response: { 200: StatusPage, ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) => {
          const { services, ...change } = request.body;
          await app.sql.begin(async (tx) => {
            const page = await lockPage(tx, request.params.slug);
            if (!page) throw hubError('STATUS_PAGE_NOT_FOUND', request.params.slug);
            if (change.slug && (await slugTaken(tx, change.slug, page.id))) {
              throw hubError('STATUS_PAGE_SLUG_TAKEN', change.slug);
            }
            if (Object.keys(change).length > 0) await updatePage(tx, page.id, change);
            if (services) {
              await assertServices(tx, services);
              await setPageServices(tx, page.id, services);
            }
          });
          return pageOf(app.sql, request.body.slug ?? request.params.slug);
        },
      );

      owner.delete(
        '/status-pages/:slug',
        {
          schema: {
            tags,
            summary: 'Delete a status page (its services stay)',
            params: SlugParams,
            response: { 204: NoContent, ...errors(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          if (!(await deletePage(app.sql, request.params.slug))) {
            throw hubError('STATUS_PAGE_NOT_FOUND', request.params.slug);
          }
          return reply.status(204).send(null);
        },
      );
    }),
  );
};

export default { name: 'status-pages', routes: plugin } satisfies HubModule;
