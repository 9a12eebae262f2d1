// The owner's dashboard: the layout (per owner: the bearer owner and each access-proxy email) and the live stream
// of card data.
//   GET /api/dashboard/layout   the layout with computed positions, and its ETag (owner)
//   PUT /api/dashboard/layout   replace it; If-Match with a stale ETag is 412 (owner)
//   GET /api/dashboard/stream   server-sent `card` events and heartbeats (owner)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { defaultLayout, normaliseLayout } from './layout.ts';
import { Layout, LayoutInput } from './schema.ts';
import { dashboardSetting } from './setting.ts';
import { findLayouts, type LayoutRow, lockLayout, saveLayout } from './store.ts';
import { openStream } from './stream.ts';

const tags = ['dashboard'];
/** The bearer owner's key; an access-proxy owner without a layout of their own starts from it. */
const baseKey = '';

interface Current {
  layout: Layout;
  etag: string;
  /** The layout as JSON text, made once per change: reads send it as is. */
  text?: string;
}

function ownerKey(request: FastifyRequest): string {
  const principal = request.principal;
  return principal?.kind === 'owner' && principal.via === 'access' && principal.email
    ? principal.email.toLowerCase()
    : baseKey;
}

/** The layout an owner sees: their own, else the bearer owner's, else the default; tagged by where it came from. */
function current(rows: LayoutRow[], key: string): Current {
  const own = rows.find((row) => row.owner_key === key);
  if (own) return { layout: own.layout, etag: `"o${own.revision}"` };
  const base = rows.find((row) => row.owner_key === baseKey);
  if (base) return { layout: base.layout, etag: `"b${base.revision}"` };
  return { layout: defaultLayout(), etag: '"d"' };
}

function matches(ifMatch: string, etag: string): boolean {
  return ifMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Layout);
  // Open streams end when the app closes, so closing never waits on a browser tab.
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of streams) end();
  });
  // Reads are answered from memory; a write replaces what it changed (only this process writes layouts).
  const cache = new Map<string, Current>();

  async function read(key: string): Promise<Current> {
    const hit = cache.get(key);
    if (hit) return hit;
    const found = current(await findLayouts(app.sql, [key, baseKey]), key);
    cache.set(key, found);
    return found;
  }

  await app.register(
    ownerOnly(async (owner) => {
      owner.get(
        '/dashboard/layout',
        {
          schema: {
            tags,
            summary: "The owner's dashboard layout",
            description:
              'With nothing saved, a default. An access-proxy owner without a layout of their own gets the ' +
              "bearer owner's. The ETag goes back in If-Match on PUT.",
            response: { 200: Type.Ref('DashboardLayout'), ...errors(401, 403) },
          },
        },
        async (request, reply) => {
          const found = await read(ownerKey(request));
          found.text ??= JSON.stringify(found.layout);
          return reply.header('etag', found.etag).type('application/json; charset=utf-8').send(found.text);
        },
      );

      owner.put(
        '/dashboard/layout',
        {
          schema: {
            tags,
            summary: 'Replace the dashboard layout',
            description:
              'Sizes are column spans 1 to 12 (legacy s, m, l are stored as 3, 6, 12). In snap mode the cards are ' +
              'packed left to right, top to bottom in list order; in free mode positions are kept and may not ' +
              'overlap. With If-Match, a layout changed since that ETag is 412; without it the last write wins.',
            headers: Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 1000 })) }),
            body: LayoutInput,
            response: { 200: Type.Ref('DashboardLayout'), ...errors(400, 401, 403, 412) },
          },
        },
        async (request, reply) => {
          const key = ownerKey(request);
          const layout = normaliseLayout(request.body);
          const ifMatch = request.headers['if-match'];
          const saved = await app.sql.begin(async (tx) => {
            await lockLayout(tx, key);
            if (ifMatch !== undefined) {
              const now = current(await findLayouts(tx, [key, baseKey]), key);
              if (!matches(ifMatch, now.etag)) {
                throw hubError('LAYOUT_CHANGED', `the layout changed since ${ifMatch} (now ${now.etag})`);
              }
            }
            return saveLayout(tx, key, layout);
          });
          cache.clear();
          const etag = `"o${saved.revision}"`;
          reply.header('etag', etag);
          return saved.layout;
        },
      );

      owner.get(
        '/dashboard/stream',
        {
          schema: {
            tags,
            summary: 'Live card data (server-sent events)',
            description:
              'text/event-stream: a `card` event ({ type, data }) for each card at the start and whenever its data ' +
              'changes (host every few seconds, the others when refreshed), and a `heartbeat` event regularly.',
            produces: ['text/event-stream'],
            response: { 200: Type.String(), ...errors(401, 403) },
          },
        },
        (request, reply) => openStream(app, request, reply, streams),
      );
    }),
  );
};

export default {
  name: 'dashboard',
  routes: plugin,
  settings: [dashboardSetting],
} satisfies HubModule;
