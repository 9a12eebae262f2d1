// The link shortener (Shlink, REST API v3), proxied with the owner's API key (SHLINK_URL and SHLINK_API_KEY,
// or Settings → Integrations).
//   GET  /api/shlink/version   Shlink's health and version
//   GET  /api/shlink/recent    the newest short links
//   POST /api/shlink           create a short link (owner)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type CardClockOptions, TtlCache, withFreshness } from '../../lib/cache.ts';
import { CardBody, errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
import { integrationSettings } from '../integrations/resolve.ts';
import { shlinkClient } from './client.ts';
import { CreateLink } from './schema.ts';

const tags = ['shlink'];
const recentTtlMs = 30_000;

const described =
  'Not configured: { configured: false }. Shlink failing is 502 SHLINK_UPSTREAM_FAILED with its status, type and ' +
  "title (a Shlink 401 is not the hub's 401).";

const plugin: FastifyPluginAsyncTypebox<CardClockOptions> = async (app, { now }) => {
  const { upstreamTimeoutMs } = app.config.dashboard;
  const cache = new TtlCache<object>({ ttlMs: recentTtlMs, now: () => now().getTime() });
  let current: { stamp: string | null; client: ReturnType<typeof shlinkClient> | null } = {
    stamp: null,
    client: null,
  };

  /** The client of the Shlink settings in force (environment, else Settings → Integrations). */
  async function connection() {
    const resolved = await integrationSettings(app, 'shlink');
    const stamp = resolved?.stamp ?? null;
    if (current.stamp !== stamp) {
      cache.clear();
      current = {
        stamp,
        client: resolved && shlinkClient({ ...resolved.settings, timeoutMs: upstreamTimeoutMs }),
      };
    }
    return current.client;
  }

  await app.register(
    agentAccess(async (agents) => {
      agents.get(
        '/shlink/version',
        {
          schema: {
            tags,
            summary: "Shlink's version and health",
            description: described,
            response: { 200: CardBody, ...errors(401, 502) },
          },
        },
        async () => {
          const client = await connection();
          if (!client) return { configured: false };
          return { configured: true, ...withFreshness(await cache.get('version', () => client.version())) };
        },
      );

      agents.get(
        '/shlink/recent',
        {
          schema: {
            tags,
            summary: 'The newest short links',
            description: `Cached 30 seconds; creating a link refreshes it. ${described}`,
            response: { 200: CardBody, ...errors(401, 502) },
          },
        },
        async () => {
          const client = await connection();
          if (!client) return { configured: false };
          return { configured: true, ...withFreshness(await cache.get('recent', () => client.recent(10))) };
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.post(
        '/shlink',
        {
          schema: {
            tags,
            summary: 'Create a short link',
            description: `Shlink refusing it (a slug in use, say) is 400 SHLINK_REJECTED with Shlink's type and title. ${described}`,
            body: CreateLink,
            response: { 201: CardBody, 200: CardBody, ...errors(400, 401, 403, 502) },
          },
        },
        async (request, reply) => {
          const client = await connection();
          if (!client) return reply.status(200).send({ configured: false });
          const created = await client.create(request.body);
          // The recent list must show it on the next read.
          cache.clear();
          return reply.status(201).send({ configured: true, ...created });
        },
      );
    }),
  );
};

export default {
  name: 'shlink',
  routes: plugin,
} satisfies HubModule;
