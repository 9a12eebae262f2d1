// What anyone may read without credentials: a public status page's JSON and the badges of the services it lists.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../lib/schemas.ts';
import { badge, stateColour, uptimeColour } from './badge.ts';
import { badgeService, publicStatus } from './pages.ts';
import { BadgeParams, PublicStatus, SlugParams, UptimeBadgeQuery } from './schema.ts';

const tags = ['status pages'];

function svg(reply: FastifyReply, body: string) {
  return reply
    .type('image/svg+xml; charset=utf-8')
    .header('cache-control', 'public, max-age=60')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .header('x-content-type-options', 'nosniff')
    .send(body);
}

export const publicRoutes: FastifyPluginAsyncTypebox = async (open) => {
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
    async (request) => publicStatus(open.sql, request.params.slug, request.principal?.kind === 'owner'),
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
      const service = await badgeService(open.sql, request.params.service_id);
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
      const service = await badgeService(open.sql, request.params.service_id);
      const window = request.query.window;
      const uptime = { '24h': service.uptime_24h, '7d': service.uptime_7d, '30d': service.uptime_30d }[
        window
      ];
      const value = uptime === null ? 'no data' : `${Number(uptime.toFixed(2))}%`;
      return svg(reply, badge(`uptime ${window}`, value, uptimeColour(uptime)));
    },
  );
};
