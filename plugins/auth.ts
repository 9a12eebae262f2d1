// Who is calling, and may they. Every request gets a principal: the owner (bearer token or access-proxy JWT), an
// agent (its own bearer token) or nobody. Access is declared per context, never per route (DESIGN.md section 5):
// a domain registers routes inside `ownerOnly(...)` or `publicAccess(...)`, and everything else is agent-or-owner.
// One hook enforces it, and the tier of an agent holds for every write it sends.

import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { AccessVerifier } from '../lib/access-jwt.ts';
import { hubError } from '../lib/errors.ts';
import { constantTimeEqual, hashToken } from '../lib/secrets.ts';

export type Tier = 'read' | 'suggest' | 'owner';
export type AccessLevel = 'public' | 'agentOrOwner' | 'owner';

/**
 * The routes anyone may call: the one list, held to the route table by a test. A route only becomes public by being
 * registered in `publicAccess(...)` and named here; registering it in that context without naming it fails at start.
 */
export const publicRoutes: readonly string[] = [
  'GET /api/healthz',
  'GET /api/readyz',
  'GET /api/version',
  'GET /api/openapi.json',
  'GET /api/docs',
  'GET /api/docs/',
  'GET /api/docs/static/*',
  'GET /api/docs/json',
  'GET /api/docs/yaml',
  'GET /api/docs/static/index.html',
  'GET /api/docs/static/swagger-initializer.js',
  'GET /api/theme',
  'POST /api/ingest/:service',
  'GET /api/icons',
  'GET /api/icons/:slug.png',
  'GET /api/icons/:slug.svg',
  'GET /api/icon-sets',
  'GET /api/icon-sets/:set',
  'GET /api/icon-sets/:set/:file',
  'GET /api/session',
  'POST /api/session',
  'DELETE /api/session',
  'GET /',
  'GET /*',
  'GET /assets/*',
  // Checks the owner token or METRICS_TOKEN itself (a scraper holds only the latter).
  'GET /api/metrics',
];

/** What the hub asks of whoever sent an agent token: the agent behind the token's hash, if any. */
export interface TokenOwner {
  token_id: string;
  token_hash: Buffer;
  agent_id: string;
  name: string;
  tier: Tier;
  space_id: string | null;
}
export type FindTokenOwner = (hash: Buffer) => Promise<TokenOwner | undefined>;

/** The browser session behind a cookie secret's hash, if it is live. */
export type FindSession = (hash: Buffer) => Promise<{ expires_at: Date } | undefined>;

/** The cookie that carries a browser session's secret. */
export const sessionCookie = 'hub_session';

export type Principal =
  | { kind: 'owner'; via: 'token' | 'access'; email?: string }
  | { kind: 'owner'; via: 'session'; expiresAt: Date }
  | { kind: 'agent'; agentId: string; name: string; tier: Tier; spaceId: string | null; tokenId: string };

/** One method and path of the route table, and who may call it. */
export interface RouteAccess {
  method: string;
  url: string;
  access: AccessLevel;
  readOnly: boolean;
}

export type AgentPrincipal = Extract<Principal, { kind: 'agent' }>;

export interface AuthOptions {
  findTokenOwner: FindTokenOwner;
  /** Browser sessions; without it a session cookie identifies no one. */
  findSession?: FindSession;
  ownerToken: string;
  access: AccessVerifier | null;
  agentRateLimitPerMinute: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Credentials were sent but did not identify anyone. */
    badCredentials: boolean;
  }
  interface FastifyInstance {
    /** Every route registered so far with the access it was given: the table the access tests are derived from. */
    routeAccess(): RouteAccess[];
  }
  interface FastifyContextConfig {
    /** Set by the access context the route is registered in; absent means agent-or-owner. */
    access?: AccessLevel;
    /** A POST that only reads (the tool protocol, searches): read-tier agents may send it. */
    readOnly?: boolean;
  }
}

export const agentTokenPrefix = 'hub_agent';

function bearer(request: FastifyRequest): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

function routeKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}

/** Registers `routes` in a context whose every route has `level`. */
function withAccess(level: AccessLevel, routes: FastifyPluginAsyncTypebox): FastifyPluginAsyncTypebox {
  return async (app, options) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (level === 'public') {
        const missing = methods.filter((method) => !publicRoutes.includes(routeKey(method, route.url)));
        if (missing.length > 0) {
          throw new Error(`${missing[0]} ${route.url} is registered as public but is not in publicRoutes`);
        }
      }
      route.config = { ...route.config, access: level };
    });
    await routes(app, options);
  };
}

/** Routes only the owner may call: an agent gets 403 OWNER_ONLY, nobody 401. */
export function ownerOnly(routes: FastifyPluginAsyncTypebox): FastifyPluginAsyncTypebox {
  return withAccess('owner', routes);
}

/** Routes anyone may call (each must be in publicRoutes); the principal is still identified when credentials come. */
export function publicAccess(routes: FastifyPluginAsyncTypebox): FastifyPluginAsyncTypebox {
  return withAccess('public', routes);
}

function unauthorized(request: FastifyRequest): Error {
  return hubError('UNAUTHORIZED', request.badCredentials ? 'invalid credentials' : 'authentication required');
}

/**
 * A write carried by the session cookie must come from the hub's own pages: the browser sends the cookie with any
 * site's form or fetch, so without this another site could make the owner's browser write.
 */
async function checkOrigin(request: FastifyRequest): Promise<void> {
  if (request.principal?.kind !== 'owner' || request.principal.via !== 'session') return;
  if (readMethods.has(request.method)) return;
  const origin = request.headers.origin;
  const own = `${request.protocol}://${request.host}`;
  if (origin !== own) {
    throw hubError(
      'ORIGIN_REFUSED',
      `a signed-in browser write must come from ${own} (Origin: ${origin ?? 'none'})`,
    );
  }
}

/** The one access check, run for every matched route. */
async function enforceAccess(request: FastifyRequest): Promise<void> {
  if (request.is404) return;
  const config = request.routeOptions.config;
  const level = config.access ?? 'agentOrOwner';
  if (level === 'public') return;
  const principal = request.principal;
  if (!principal) throw unauthorized(request);
  if (principal.kind === 'owner') return;
  if (level === 'owner') throw hubError('OWNER_ONLY');
  if (principal.tier === 'read' && !readMethods.has(request.method) && !config.readOnly) {
    throw hubError('TIER_CANNOT_WRITE', principal.tier);
  }
}

export default fp<AuthOptions>(
  async (app, options) => {
    app.decorateRequest('principal', null);
    app.decorateRequest('badCredentials', false);
    // The verifier is handed over to this plugin: its key-set connections end with the app.
    app.addHook('onClose', async () => {
      await options.access?.close();
    });

    async function identify(request: FastifyRequest): Promise<void> {
      const token = bearer(request);
      // The owner token first: it needs no key set, so a slow or failing access proxy never delays it.
      if (token && constantTimeEqual(token, options.ownerToken)) {
        request.principal = { kind: 'owner', via: 'token' };
        return;
      }
      const assertion = request.headers['cf-access-jwt-assertion'];
      const hasAssertion = options.access !== null && typeof assertion === 'string' && assertion !== '';
      if (options.access && hasAssertion) {
        const email = await options.access.verify(assertion, request.log);
        if (email) {
          request.principal = { kind: 'owner', via: 'access', email };
          return;
        }
      }
      if (token?.startsWith(`${agentTokenPrefix}_`)) {
        const hash = hashToken(token);
        const owner = await options.findTokenOwner(hash);
        if (owner && constantTimeEqual(owner.token_hash, hash)) {
          request.principal = {
            kind: 'agent',
            agentId: owner.agent_id,
            name: owner.name,
            tier: owner.tier,
            spaceId: owner.space_id,
            tokenId: owner.token_id,
          };
          return;
        }
      }
      const secret = request.cookies[sessionCookie];
      if (token === undefined && secret && options.findSession) {
        const session = await options.findSession(hashToken(secret));
        if (session) {
          request.principal = { kind: 'owner', via: 'session', expiresAt: session.expires_at };
          return;
        }
      }
      request.badCredentials = token !== undefined || hasAssertion;
    }

    await app.register(cookie);
    // The config is read when asked, not here: the access context sets it after this hook has run. Method and URL
    // are taken now (a route's options object can be reused for the HEAD route derived from it).
    const routes: { methods: string[]; url: string; route: RouteOptions }[] = [];
    app.addHook('onRoute', (route: RouteOptions) => {
      routes.push({ methods: [route.method].flat(), url: route.url, route });
    });
    app.decorate('routeAccess', () =>
      routes.flatMap(({ methods, url, route }) =>
        methods.map((method) => ({
          method,
          url,
          access: route.config?.access ?? 'agentOrOwner',
          readOnly: route.config?.readOnly === true,
        })),
      ),
    );

    app.addHook('onRequest', identify);
    app.addHook('onRequest', checkOrigin);
    app.addHook('onRequest', enforceAccess);

    // Per-agent limit; the owner and anonymous callers are not counted here. Counted before the body is parsed
    // and validated, so an agent's malformed requests use up its budget too.
    await app.register(rateLimit, {
      global: true,
      hook: 'preParsing',
      max: options.agentRateLimitPerMinute,
      timeWindow: 60_000,
      keyGenerator: (request) => (request.principal?.kind === 'agent' ? request.principal.agentId : 'other'),
      allowList: (request) => request.principal?.kind !== 'agent',
      errorResponseBuilder: (_request, context) => ({
        statusCode: 429,
        code: 'RATE_LIMITED',
        error: 'Too Many Requests',
        message: `agent rate limit of ${context.max} requests per minute reached; retry in ${Math.ceil(context.ttl / 1000)} s`,
      }),
    });
  },
  { name: 'auth', dependencies: ['errors'] },
);

/** An agent held to one space (it learns nothing of the others). */
export function isScopedAgent(principal: Principal | null): boolean {
  return principal?.kind === 'agent' && principal.spaceId !== null;
}

/** Whether an agent may see or act in a space: unscoped agents reach every space. */
export function agentCanReachSpace(principal: Principal | null, spaceId: string | null | undefined): boolean {
  if (principal?.kind !== 'agent') return principal?.kind === 'owner';
  return principal.spaceId === null || principal.spaceId === spaceId;
}
