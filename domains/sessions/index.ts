// Browser sign-in: the owner token, sent once, becomes an HttpOnly session cookie kept server-side. A session lives
// only while the owner token it was made with is the owner token: a new OWNER_TOKEN ends every older session.
//
// Routes it registers (access in brackets):
//   POST   /api/session       [public]  { token } -> 201 and the cookie (Secure when the request came over https)
//   GET    /api/session       [public]  { signed_in, via, expires_at }: who this browser is to the hub
//   DELETE /api/session       [public]  ends this browser's session and clears the cookie
//   GET    /api/sessions      [owner only]  the live sessions: created, last used, address, user agent, current
//   DELETE /api/sessions      [owner only]  signs out everywhere
//   DELETE /api/sessions/:id  [owner only]  ends one session
// Signing in needs no credentials and signing out works even once the session has expired, so those three are
// public; a refused sign-in counts as a failure of the caller's address (plugins/auth.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import { constantTimeEqual, hashToken, newToken } from '../../lib/secrets.ts';
import type { HubModule } from '../../module.ts';
import { publicAccess, sessionCookie } from '../../plugins/auth.ts';
import { BrowserSession, SessionList, SessionState } from './schema.ts';
import { createSession, deleteAllSessions, deleteSession, deleteSessionById, listSessions } from './store.ts';

const tags = ['session'];

function state(request: FastifyRequest) {
  const principal = request.principal;
  if (principal?.kind !== 'owner') return { signed_in: false, via: null, expires_at: null };
  if (principal.via === 'session') {
    return { signed_in: true, via: 'session' as const, expires_at: principal.expiresAt.toISOString() };
  }
  return {
    signed_in: true,
    via: principal.via === 'token' ? ('bearer' as const) : principal.via,
    expires_at: null,
  };
}

export interface SessionOptions {
  ownerToken: string;
  /** lib/secrets.ts ownerTokenDigest of the owner token, computed once. */
  ownerDigest: Buffer;
}

/** The id of the session this request came with, if it came with one. */
function currentSession(request: FastifyRequest): string | null {
  const principal = request.principal;
  return principal?.kind === 'owner' && principal.via === 'session' ? principal.sessionId : null;
}

const plugin: FastifyPluginAsyncTypebox<SessionOptions> = async (app, options) => {
  app.addSchema(SessionState);
  app.addSchema(BrowserSession);
  const ttlSeconds = app.config.access.sessionTtlHours * 3600;
  const { ownerToken, ownerDigest } = options;

  function clearCookie(request: FastifyRequest, reply: FastifyReply): void {
    reply.clearCookie(sessionCookie, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
    });
  }

  await app.register(
    publicAccess(async (open) => {
      open.get(
        '/session',
        {
          schema: {
            tags,
            summary: 'Whether this browser is signed in, and how',
            response: { 200: Type.Ref('SessionState') },
          },
        },
        async (request) => state(request),
      );

      open.post(
        '/session',
        {
          config: { checksSecret: true },
          schema: {
            tags,
            summary: 'Sign in with the owner token: sets the session cookie',
            body: Type.Object(
              { token: Type.String({ minLength: 1, maxLength: 512 }) },
              { additionalProperties: false },
            ),
            response: { 201: Type.Ref('SessionState'), ...errors(400, 401, 403, 429) },
          },
        },
        async (request, reply) => {
          // A sign-in form on another site must not be able to sign this browser in to its own choosing.
          const origin = request.headers.origin;
          const own = `${request.protocol}://${request.host}`;
          if (origin !== undefined && origin !== own) {
            throw hubError('ORIGIN_REFUSED', `sign-in must come from ${own} (Origin: ${origin})`);
          }
          if (!constantTimeEqual(request.body.token, ownerToken)) throw hubError('OWNER_TOKEN_INVALID');
          const secret = newToken('hub_session');
          const session = await createSession(app.sql, {
            secretHash: hashToken(secret),
            ttlSeconds,
            ownerDigest,
            address: request.ip.slice(0, 100),
            userAgent: request.headers['user-agent']?.slice(0, 500) ?? null,
          });
          reply.setCookie(sessionCookie, secret, {
            path: '/',
            httpOnly: true,
            sameSite: 'strict',
            secure: request.protocol === 'https',
            expires: session.expires_at,
          });
          return reply
            .status(201)
            .send({ signed_in: true, via: 'session' as const, expires_at: session.expires_at.toISOString() });
        },
      );

      open.delete(
        '/session',
        {
          schema: {
            tags,
            summary: 'Sign out: ends the session',
            response: { 204: NoContent, ...errors(403) },
          },
        },
        async (request, reply) => {
          const secret = request.cookies[sessionCookie];
          if (secret) await deleteSession(app.sql, hashToken(secret));
          clearCookie(request, reply);
          return reply.status(204).send(null);
        },
      );
    }),
  );

  // Owner-only: registered in no access context.
  app.get(
    '/sessions',
    {
      schema: {
        tags,
        summary: "The live browser sessions, most recently used first; current marks this request's",
        response: { 200: SessionList, ...errors(401, 403) },
      },
    },
    async (request) => {
      const current = currentSession(request);
      const items = (await listSessions(app.sql, ownerDigest)).map((session) => ({
        ...session,
        current: session.id === current,
      }));
      return { items, total: items.length };
    },
  );

  app.delete(
    '/sessions',
    {
      schema: {
        tags,
        summary: 'Sign out everywhere: ends every browser session, this one included',
        response: { 204: NoContent, ...errors(401, 403) },
      },
    },
    async (request, reply) => {
      await deleteAllSessions(app.sql);
      clearCookie(request, reply);
      return reply.status(204).send(null);
    },
  );

  app.delete(
    '/sessions/:id',
    {
      schema: {
        tags,
        summary: 'End one browser session',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await deleteSessionById(app.sql, request.params.id, ownerDigest))) {
        throw hubError('SESSION_NOT_FOUND');
      }
      if (request.params.id === currentSession(request)) clearCookie(request, reply);
      return reply.status(204).send(null);
    },
  );
};

export default {
  name: 'sessions',
  routes: plugin,
} satisfies HubModule;
