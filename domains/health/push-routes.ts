// The heartbeat URLs of push services, public: the token in the path is the credential (push.ts).
//   GET|POST /api/push/:token                    Uptime Kuma's push: ?status=up|down&msg=&ping=; answers {"ok":true},
//                                                or {"ok":false,"msg":...} with 404 for a token it does not know
//   GET|POST /api/ping/:token                    healthchecks.io's ping: success
//   GET|POST /api/ping/:token/start              a run started: it must finish within the service's grace_s
//   GET|POST /api/ping/:token/fail               the run failed
//   GET|POST /api/ping/:token/log                a message kept in the service's log; its state stays as it is
//   GET|POST /api/ping/:token/:code              the run's exit status: 0 success, 1-255 failure
// Each ping may name its run, `?rid=<uuid>`: a finish ends the start with the same rid (push.ts).
// A healthchecks.io ping answers `OK` as text; its request body (any type, the first 10 KB) is kept as the message.
// Each token may report HEARTBEATS_PER_MINUTE times a minute (429 beyond), whoever sends them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errorBody, hubError } from '../../lib/errors.ts';
import { errors, uuidPattern } from '../../lib/schemas.ts';
import { publicAccess } from '../../plugins/auth.ts';
import { findPushService, type Heartbeat, receiveHeartbeat } from './push.ts';
import type { PushService } from './store.ts';

export const heartbeatsPerMinute = 60;
/** The part of a message (Kuma's msg, a ping's body) that is kept. */
export const maxMessageBytes = 10 * 1024;
/** A ping's body may be larger (a cron job's whole log): it is read up to this and cut to maxMessageBytes. */
const maxBodyBytes = 100 * 1024;

const tags = ['health'];
/** A ping's message when its body says nothing. */
const unsaid: Partial<Record<Heartbeat['signal'], string>> = { down: 'failed', log: '(empty log message)' };
const Token = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'the push service’s heartbeat token',
});

const KumaQuery = Type.Object(
  {
    status: Type.Optional(
      Type.String({ maxLength: 20, description: '`up` (the default) or `down`; anything but `up` is down' }),
    ),
    msg: Type.Optional(Type.String({ maxLength: 100_000, description: 'kept as the message (10 KB)' })),
    ping: Type.Optional(
      Type.String({ maxLength: 40, description: 'the response time in ms, shown as latency' }),
    ),
  },
  { additionalProperties: true },
);
const PingQuery = Type.Object(
  {
    rid: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'the run this ping belongs to, a UUID: a finish ends the start with the same rid, and its duration is ' +
          'recorded; without rid a finish ends the start without one',
      }),
    ),
  },
  { additionalProperties: true },
);
const KumaAnswer = Type.Object({ ok: Type.Literal(true) });
// The refusal and the ping's text answer are named (index.ts adds them), so the document writes each once for the
// two Kuma and the ten ping operations.
export const KumaRefusal = Type.Object(
  {
    ok: Type.Literal(false),
    msg: Type.String(),
    statusCode: Type.Integer(),
    code: Type.String(),
    error: Type.String(),
    message: Type.String(),
  },
  {
    $id: 'KumaRefusal',
    description: "Uptime Kuma's refusal ({ ok: false, msg }) with the hub's error fields beside it",
  },
);
export const PingAnswer = Type.String({
  $id: 'PingAnswer',
  description:
    'A healthchecks.io ping’s answer, text: `OK`; with 404 `not found` (no enabled push service has this token); ' +
    'with 429 `rate limited`',
});

/** Text cut to `limit` bytes of UTF-8 (never inside a character), NULs taken out (the database refuses them). */
function cut(text: string, limit = maxMessageBytes): string {
  const clean = text.replaceAll('\u0000', '');
  const bytes = Buffer.from(clean, 'utf8');
  if (bytes.length <= limit) return clean;
  return bytes
    .subarray(0, limit)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

export const heartbeatRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const limiter = app.createRateLimit({
    max: heartbeatsPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => `heartbeat:${(request.params as { token?: string }).token ?? ''}`,
    // Whoever sends it, the owner included (the agent limit's allow-list would otherwise be inherited).
    allowList: () => false,
  });
  const deps = { sql: app.sql, config: app.config };

  // A heartbeat's body is whatever the sender had (a log, JSON, nothing): read as text, never parsed or refused.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: maxBodyBytes }, (_request, body, done) =>
    done(null, cut(String(body))),
  );

  /** The service of the token, within its rate; otherwise the refusal's status and words. */
  async function admit(
    request: FastifyRequest<{ Params: { token: string } }>,
    reply: FastifyReply,
  ): Promise<PushService | { status: 404 | 429; message: string }> {
    const limit = await limiter(request);
    if (!limit.isAllowed && limit.isExceeded) {
      reply.header('retry-after', String(Math.max(1, limit.ttlInSeconds)));
      return { status: 429, message: `at most ${heartbeatsPerMinute} heartbeats a minute per token` };
    }
    const service = await findPushService(app.sql, request.params.token);
    return service ?? { status: 404, message: 'no enabled push service has this token' };
  }

  await app.register(
    publicAccess(async (open) => {
      open.route({
        method: ['GET', 'POST'],
        url: '/push/:token',
        schema: {
          tags,
          summary: 'A heartbeat of a push service (Uptime Kuma’s push URL)',
          description:
            'Sent by the checked job itself, without credentials: the token is one. `status=down` reports a ' +
            'failure, `msg` is kept as the message, `ping` as the latency. Any request body is ignored.',
          params: Type.Object({ token: Token }),
          querystring: KumaQuery,
          response: { 200: KumaAnswer, 404: KumaRefusal, 429: KumaRefusal, ...errors(400) },
        },
        handler: async (request, reply) => {
          const admitted = await admit(request, reply);
          if ('status' in admitted) {
            const code = admitted.status === 404 ? 'PUSH_TOKEN_UNKNOWN' : 'RATE_LIMITED';
            const body = errorBody(admitted.status, code, admitted.message);
            return reply.status(admitted.status).send({ ok: false, msg: admitted.message, ...body });
          }
          const { status = 'up', msg, ping } = request.query;
          const latency = ping === undefined ? Number.NaN : Number.parseFloat(ping);
          await receiveHeartbeat(deps, admitted, {
            signal: status === 'up' ? 'up' : 'down',
            message: cut(msg || 'OK'),
            latency_ms:
              Number.isFinite(latency) && latency >= 0 && latency < 2 ** 31 ? Math.round(latency) : null,
            rid: null,
          });
          return { ok: true as const };
        },
      });

      const pings: {
        suffix: string;
        summary: string;
        signal: (params: { code?: number }) => Heartbeat['signal'];
      }[] = [
        { suffix: '', summary: 'success', signal: () => 'up' },
        { suffix: '/start', summary: 'a run started', signal: () => 'start' },
        { suffix: '/fail', summary: 'failure', signal: () => 'down' },
        { suffix: '/log', summary: 'a message for the log, changing nothing', signal: () => 'log' },
        {
          suffix: '/:code',
          summary: 'the exit status of a run (0 success, 1-255 failure)',
          signal: ({ code }) => (code === 0 ? 'up' : 'down'),
        },
      ];
      for (const ping of pings) {
        open.route({
          method: ['GET', 'POST'],
          url: `/ping/:token${ping.suffix}`,
          schema: {
            tags,
            summary: `A heartbeat of a push service, healthchecks.io’s shape: ${ping.summary}`,
            description:
              'Sent by the checked job itself, without credentials: the token is one. The request body (any ' +
              'type; its first 10 KB) is kept as the message. Answers `OK` as text.',
            params: Type.Object({
              token: Token,
              ...(ping.suffix === '/:code' ? { code: Type.Integer({ minimum: 0, maximum: 255 }) } : {}),
            }),
            querystring: PingQuery,
            produces: ['text/plain'],
            response: { 200: PingAnswer, 404: PingAnswer, 429: PingAnswer, ...errors(400, 413) },
          },
          handler: async (request, reply) => {
            const { rid = null } = request.query;
            if (rid !== null && !uuidPattern.test(rid)) throw hubError('PUSH_RID_INVALID', rid.slice(0, 100));
            reply.type('text/plain; charset=utf-8');
            const admitted = await admit(request, reply);
            if ('status' in admitted) {
              return reply
                .status(admitted.status)
                .send(admitted.status === 404 ? 'not found' : 'rate limited');
            }
            const params = request.params as { code?: number };
            const signal = ping.signal(params);
            const sent = typeof request.body === 'string' ? request.body.trim() : '';
            const said = params.code !== undefined ? `exit status ${params.code}` : (unsaid[signal] ?? 'OK');
            await receiveHeartbeat(deps, admitted, {
              signal,
              message: sent || said,
              latency_ms: null,
              rid: rid?.toLowerCase() ?? null,
            });
            return reply.send('OK');
          },
        });
      }
    }),
  );
};
