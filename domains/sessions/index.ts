// Browser sign-in: the owner token, sent once, becomes an HttpOnly session cookie kept server-side.
//   POST   /api/session   { token } -> 201 and the cookie (Secure when the request came over https)
//   GET    /api/session   { signed_in, via, expires_at }: who this browser is to the hub
//   DELETE /api/session   ends the session and clears the cookie
// All three are public: signing in needs no credentials, and signing out works even once the session has expired.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, NoContent } from '../../lib/schemas.ts';
import { constantTimeEqual, hashToken, newToken } from '../../lib/secrets.ts';
import { publicAccess, sessionCookie } from '../../plugins/auth.ts';
import { createSession, deleteSession } from './store.ts';

const SessionState = Type.Object(
  {
    signed_in: Type.Boolean(),
    via: Type.Union([Type.Literal('session'), Type.Literal('bearer'), Type.Literal('access'), Type.Null()]),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'SessionState' },
);

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

const plugin: FastifyPluginAsyncTypebox<{ ownerToken: string }> = async (app, options) => {
  app.addSchema(SessionState);
  const ttlSeconds = app.config.sessionTtlHours * 3600;
  const { ownerToken } = options;

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
          schema: {
            tags,
            summary: 'Sign in with the owner token: sets the session cookie',
            body: Type.Object(
              { token: Type.String({ minLength: 1, maxLength: 512 }) },
              { additionalProperties: false },
            ),
            response: { 201: Type.Ref('SessionState'), ...errors(400, 401, 403) },
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
          const session = await createSession(app.sql, hashToken(secret), ttlSeconds);
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
};

export default plugin;
