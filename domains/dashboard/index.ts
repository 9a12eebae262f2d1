// The owner's dashboard: the layout (per owner: the bearer owner and each access-proxy email) and the live stream
// of card data.
//   GET /api/dashboard/layout   the layout with computed positions, and its ETag (owner)
//   PUT /api/dashboard/layout   replace it; If-Match with a stale ETag is 412 (owner)
//   GET /api/dashboard/stream   server-sent `card` events and heartbeats (owner)
//   GET /api/boards/:id/layout  a board's layout (the default board's is the one above) and its ETag (owner)
//   PUT /api/boards/:id/layout  replace it, with the same If-Match rule (owner)
//   POST /api/dashboard/custom  a custom card's values: its JSON endpoint read and its fields picked (owner)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errors, IdParams } from '../../lib/schemas.ts';
import { SecretUnreadableError } from '../../lib/secrets.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { layoutKeyOfBoard } from '../boards/layout-key.ts';
import { openHubSecret, sealHubSecret } from '../integrations/keyring.ts';
import { TimelineFollower } from '../timeline/live.ts';
import { CustomCardCache, CustomCardData, CustomCardRead } from './custom.ts';
import { maskLayoutHeaders, sealedCardHeaders, sealedLayoutHeaders } from './custom-headers.ts';
import { baseKey, type Current, current, layoutCache, writeLayout } from './layouts.ts';
import { Layout, LayoutInput } from './schema.ts';
import { dashboardSetting } from './setting.ts';
import { findLayouts } from './store.ts';
import { openStream } from './stream.ts';

const tags = ['dashboard'];

function ownerKey(request: FastifyRequest): string {
  const principal = request.principal;
  return principal?.kind === 'owner' && principal.via === 'access' && principal.email
    ? principal.email.toLowerCase()
    : baseKey;
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Layout);
  // Open streams end when the app closes, so closing never waits on a browser tab.
  const streams = new Set<() => void>();
  const timeline = new TimelineFollower(app.sql);
  app.addHook('preClose', async () => {
    for (const end of streams) end();
    timeline.stop();
  });
  // Reads are answered from memory; a write replaces what it changed (only this process writes layouts).
  const cache = layoutCache(app.sql);

  async function read(key: string): Promise<Current> {
    const hit = cache.get(key);
    if (hit) return hit;
    const found = current(await findLayouts(app.sql, [key, baseKey]), key);
    cache.set(key, found);
    return found;
  }

  async function sendLayout(reply: FastifyReply, key: string): Promise<FastifyReply> {
    const found = await read(key);
    found.text ??= JSON.stringify(maskLayoutHeaders(found.layout));
    return reply.header('etag', found.etag).type('application/json; charset=utf-8').send(found.text);
  }

  async function replaceLayout(
    reply: FastifyReply,
    key: string,
    body: LayoutInput,
    ifMatch: string | undefined,
  ): Promise<Layout> {
    const saved = await app.sql.begin((tx) =>
      writeLayout(tx, key, body, {
        ifMatch,
        seal: (place, value) => sealHubSecret(app.config.server, place, value),
      }),
    );
    cache.clear();
    reply.header('etag', `"o${saved.revision}"`);
    return maskLayoutHeaders(saved.layout);
  }

  const custom = new CustomCardCache(app.config.dashboard.upstreamTimeoutMs);

  /** The headers a card's read sends: those the body gives as text, else the saved card's, opened. */
  async function customHeaders(
    request: FastifyRequest,
    body: CustomCardRead,
  ): Promise<Record<string, string>> {
    const given = body.headers ?? {};
    const headers: Record<string, string> = {};
    if (body.card_id !== undefined) {
      const key = body.board_id
        ? await layoutKeyOfBoard(app.sql, body.board_id, ownerKey(request))
        : ownerKey(request);
      const card = (await read(key)).layout.cards.find((one) => one.id === body.card_id);
      for (const { name, place, sealed } of card
        ? sealedLayoutHeaders({ mode: 'snap', cards: [card] })
        : []) {
        try {
          headers[name] = await openHubSecret(app.config.server, place, sealed);
        } catch (error) {
          if (!(error instanceof SecretUnreadableError)) throw error;
          // A value that will not open is not sent; the upstream's refusal tells the owner to enter it again.
        }
      }
    }
    for (const [name, value] of Object.entries(given)) {
      if (typeof value === 'string') headers[name] = value;
      else if (value === null) delete headers[name];
    }
    return headers;
  }
  await app.register(
    ownerOnly(async (owner) => {
      owner.post(
        '/dashboard/custom',
        {
          schema: {
            tags,
            summary: "A custom card's values",
            description:
              "The card's config: its JSON endpoint (read by the hub with a time limit; a LAN address is allowed, " +
              'as for health checks) and the fields to show, each a JSON Pointer with a format. Cached for ' +
              'interval_s (default 60). An unreachable upstream, an error status or an answer that is not JSON is ' +
              'ok: false with the reason. With card_id (and board_id for a board other than the default), the ' +
              "saved card's headers are sent, opened only for this call: a layout never shows them.",
            body: CustomCardRead,
            response: { 200: CustomCardData, ...errors(400, 401, 403, 404) },
          },
        },
        async (request) => {
          const { card_id: _card, board_id: _board, ...config } = request.body;
          return custom.read({ ...config, headers: await customHeaders(request, request.body) });
        },
      );

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
        async (request, reply) => sendLayout(reply, ownerKey(request)),
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
        async (request, reply) =>
          replaceLayout(reply, ownerKey(request), request.body, request.headers['if-match']),
      );

      owner.get(
        '/boards/:id/layout',
        {
          schema: {
            tags,
            summary: "A board's layout",
            description:
              "The default board's is the dashboard layout (/api/dashboard/layout); another board's starts empty. " +
              'The ETag goes back in If-Match on PUT.',
            params: IdParams,
            response: { 200: Type.Ref('DashboardLayout'), ...errors(400, 401, 403, 404) },
          },
        },
        async (request, reply) =>
          sendLayout(reply, await layoutKeyOfBoard(app.sql, request.params.id, ownerKey(request))),
      );

      owner.put(
        '/boards/:id/layout',
        {
          schema: {
            tags,
            summary: "Replace a board's layout",
            description:
              'As PUT /api/dashboard/layout: with If-Match, a layout changed since that ETag is 412.',
            params: IdParams,
            headers: Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 1000 })) }),
            body: LayoutInput,
            response: { 200: Type.Ref('DashboardLayout'), ...errors(400, 401, 403, 404, 412) },
          },
        },
        async (request, reply) =>
          replaceLayout(
            reply,
            await layoutKeyOfBoard(app.sql, request.params.id, ownerKey(request)),
            request.body,
            request.headers['if-match'],
          ),
      );

      owner.get(
        '/dashboard/stream',
        {
          schema: {
            tags,
            summary: 'Live card data (server-sent events)',
            description:
              'text/event-stream: a `card` event ({ type, data }) for each card at the start and whenever its data ' +
              'changes (host every few seconds, the others when refreshed), an `event` (the timeline event) for each ' +
              'new event on the timeline, and a `heartbeat` event regularly.',
            produces: ['text/event-stream'],
            response: { 200: Type.String(), ...errors(401, 403) },
          },
        },
        (request, reply) => openStream(app, request, reply, streams, timeline),
      );
    }),
  );
};

export default {
  name: 'dashboard',
  routes: plugin,
  settings: [dashboardSetting],
  sealed: [sealedCardHeaders],
} satisfies HubModule;
