// Who is calling, and may they. Every request gets a principal: the owner (bearer token, browser session or
// access-proxy JWT), an agent (its own bearer token) or nobody. Access is declared per context, never per route
// (README, "Access"): a route is owner-only unless it is registered inside `agentAccess(...)` or
// `publicAccess(...)`, and each of those routes is also named in the committed list of its context, so opening a
// route is always a visible change to this file. One hook enforces it, and the tier of an agent holds for every write
// it sends. Guessing is throttled: failed sign-ins and wrong bearer tokens are counted per client address.

import cookie from '@fastify/cookie';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyPluginOptions, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import ipaddr from 'ipaddr.js';
import type { AccessVerifier } from '../lib/access-jwt.ts';
import { hubError } from '../lib/errors.ts';
import { constantTimeEqual, hashToken } from '../lib/secrets.ts';
import { routesWithoutDatabase } from './db.ts';

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
  // The single-use token in the path is the credential (approve from the phone).
  'POST /api/approvals/:token',
  'GET /api/icons',
  'GET /api/icons/:slug.png',
  'GET /api/icons/:slug.svg',
  'GET /api/icons/mdi/:name.png',
  'GET /api/icons/mdi/:name.svg',
  'GET /api/icon-sets',
  'GET /api/icon-sets/:set',
  'GET /api/icon-sets/:set/:file',
  'GET /api/session',
  'POST /api/session',
  'DELETE /api/session',
  'GET /',
  'GET /*',
  'GET /assets/*',
  'GET /app-icons/:file',
  'GET /manifest.webmanifest',
  'GET /sw.js',
  // Checks the owner token or METRICS_TOKEN itself (a scraper holds only the latter).
  'GET /api/metrics',
  // Heartbeats of push services: the token in the path is the credential (domains/health/push-routes.ts).
  'GET /api/push/:token',
  'POST /api/push/:token',
  'GET /api/ping/:token',
  'POST /api/ping/:token',
  'GET /api/ping/:token/start',
  'POST /api/ping/:token/start',
  'GET /api/ping/:token/fail',
  'POST /api/ping/:token/fail',
  'GET /api/ping/:token/log',
  'POST /api/ping/:token/log',
  'GET /api/ping/:token/:code',
  'POST /api/ping/:token/:code',
  // Public status pages and the badges of the services on them (domains/status-pages).
  'GET /api/status/:slug',
  'GET /api/badge/:service_id/status.svg',
  'GET /api/badge/:service_id/uptime.svg',
];

/**
 * The routes agents may call (the owner may too): the one list, held to the route table by a test and listed in
 * README ("Access"). A route only opens to agents by being registered in `agentAccess(...)` and named here;
 * registering it in that context without naming it fails at start. Everything else is the owner's.
 */
export const agentRoutes: readonly string[] = [
  // Knowledge: spaces, pages, projects, tasks, refs, source documents, resources (scope and tier hold).
  'GET /api/spaces',
  'GET /api/spaces/:id',
  'GET /api/spaces/:id/pages',
  'GET /api/pages',
  'POST /api/pages',
  'GET /api/pages/:id',
  'GET /api/pages/:id/backlinks',
  'PATCH /api/pages/:id',
  'DELETE /api/pages/:id',
  'GET /api/projects',
  'POST /api/projects',
  'GET /api/projects/:id',
  'PATCH /api/projects/:id',
  'DELETE /api/projects/:id',
  'GET /api/projects/:id/links',
  'GET /api/projects/:id/refs',
  'POST /api/projects/:id/refs',
  'DELETE /api/projects/:id/refs/:refId',
  'POST /api/projects/:id/research',
  'GET /api/tasks',
  'POST /api/tasks',
  'GET /api/tasks/:id',
  'PATCH /api/tasks/:id',
  'DELETE /api/tasks/:id',
  'GET /api/refs',
  'POST /api/refs',
  'POST /api/refs/upsert',
  'GET /api/refs/:id',
  'PATCH /api/refs/:id',
  'DELETE /api/refs/:id',
  'GET /api/source-docs',
  'POST /api/source-docs',
  'GET /api/source-docs/:id',
  'PATCH /api/source-docs/:id',
  'DELETE /api/source-docs/:id',
  'GET /api/resources',
  'POST /api/resources',
  'GET /api/resources/:id',
  'PATCH /api/resources/:id',
  'DELETE /api/resources/:id',
  'GET /api/resources/:id/dependencies',
  'GET /api/network-hosts',
  'GET /api/network-hosts/:id',
  'GET /api/search',
  'GET /api/tags',
  // Capture.
  'GET /api/captures',
  'POST /api/capture',
  'POST /api/capture/upload',
  // Feeds: read only (the owner adds and changes them).
  'GET /api/feeds',
  'GET /api/feeds/:id',
  'GET /api/feeds/:id/items',
  // The tool protocol, and an agent's own profile.
  'POST /api/mcp',
  'GET /api/mcp',
  'DELETE /api/mcp',
  'GET /api/agents/:id/profile',
  // Reads of the home lab: devices, health, dashboard cards.
  'GET /api/devices',
  'GET /api/devices/:mac',
  'GET /api/devices/discovered',
  'GET /api/health/services',
  'GET /api/health/services/:id',
  'GET /api/health/services/:id/history',
  'GET /api/health/events',
  'GET /api/health/discovered',
  'GET /api/weather',
  'GET /api/host',
  'GET /api/cluster',
  'GET /api/storage',
  'GET /api/backups',
  'GET /api/shlink/version',
  'GET /api/shlink/recent',
  'GET /api/speedtest/latest',
  'GET /api/speedtest/history',
  'GET /api/speedtest/history.csv',
  'GET /api/ai-usage',
  // The launcher's apps (writes wait for approval like other entity writes).
  'GET /api/apps',
  'POST /api/apps',
  'GET /api/apps/:id',
  'PATCH /api/apps/:id',
  'DELETE /api/apps/:id',
  // The ops timeline (a scoped agent sees its space's events and the global ones).
  'GET /api/timeline',
  'GET /api/timeline/around',
  // Proposals: usage records, and actions that wait for the owner's approval.
  'POST /api/ai-usage/records',
  'POST /api/actions/run',
  // Incidents the hub opened (the owner changes them).
  'GET /api/incidents',
  'GET /api/incidents/:id',
];

/** What the hub asks of whoever sent an agent token: the agent behind the token's hash, if any. */
export interface TokenOwner {
  token_id: string;
  token_hash: Buffer;
  agent_id: string;
  name: string;
  tier: Tier;
  space_id: string | null;
  /** The conversation a turn token was minted for (null for every other token). */
  conversation_id: string | null;
}
export type FindTokenOwner = (hash: Buffer) => Promise<TokenOwner | undefined>;

/** The live browser session behind a cookie secret's hash, made with the current owner token, if any. */
export type FindSession = (hash: Buffer) => Promise<{ id: string; expires_at: Date } | undefined>;

/**
 * Failed sign-ins and wrong bearer tokens, counted per client address where every process sees them (the
 * database). `check` says how many seconds the address must still wait (0: it may try), and whether this is the
 * first refusal of its window (the one that is logged).
 */
export interface FailureCounter {
  check(address: string): Promise<{ retryAfter: number; firstRefusal: boolean }>;
  fail(address: string): Promise<void>;
}

/**
 * Requests counted per key in fixed windows, in a store every hub process shares (the database), so a rate limit
 * holds however many API processes share the load.
 */
export interface RateCounter {
  /** Counts one request of `key`: the count in its window and the milliseconds left of that window. */
  hit(key: string, windowMs: number): Promise<{ count: number; ttlMs: number }>;
  /** The same, without counting. */
  peek(key: string): Promise<{ count: number; ttlMs: number }>;
}

type RateCallback = Parameters<FastifyRateLimitStore['incr']>[1];

/** @fastify/rate-limit's store contract over a shared counter; a route's own limit counts under its own prefix. */
class SharedRateStore implements FastifyRateLimitStore {
  readonly counter: RateCounter;
  readonly prefix: string;

  constructor(counter: RateCounter, prefix = '') {
    this.counter = counter;
    this.prefix = prefix;
  }

  incr(key: string, callback: RateCallback, timeWindow: number): void {
    this.answer(this.counter.hit(this.prefix + key, timeWindow), callback);
  }

  /** What createRateLimit's check mode reads: the count, without counting. */
  read(key: string, callback: RateCallback): void {
    this.answer(this.counter.peek(this.prefix + key), callback);
  }

  child(route: { method: string | string[]; url: string }): SharedRateStore {
    return new SharedRateStore(this.counter, `${this.prefix}${route.method}${route.url}-`);
  }

  private answer(counted: Promise<{ count: number; ttlMs: number }>, callback: RateCallback): void {
    counted.then(
      ({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }),
      (error: Error) => callback(error),
    );
  }
}

/** The store class @fastify/rate-limit builds, bound to the shared counter. */
function sharedRateStore(counter: RateCounter): FastifyRateLimitStoreCtor {
  return class extends SharedRateStore {
    constructor() {
      super(counter);
    }
  };
}

/** The cookie that carries a browser session's secret. */
export const sessionCookie = 'hub_session';

export type Principal =
  | { kind: 'owner'; via: 'token' | 'access' | 'phone'; email?: string }
  | { kind: 'owner'; via: 'session'; sessionId: string; expiresAt: Date }
  | {
      kind: 'agent';
      agentId: string;
      name: string;
      tier: Tier;
      spaceId: string | null;
      tokenId: string;
      /** The conversation this agent's turn belongs to (a turn token), else null. */
      conversationId: string | null;
    };

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
  failures: FailureCounter;
  /** Where the rate limits (agents here, a route's own through app.createRateLimit) are counted. */
  rates: RateCounter;
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
    /** Set by the access context the route is registered in; absent means owner-only. */
    access?: AccessLevel;
    /** A POST that only reads (the tool protocol, searches): read-tier agents may send it. */
    readOnly?: boolean;
    /**
     * The route checks a secret of its own (the sign-in's owner token, METRICS_TOKEN, the webhook secret): a bearer
     * token sent to it is not counted as wrong before the route has judged it, and its 401s count as failures of the
     * caller's address.
     */
    checksSecret?: boolean;
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

/** The committed list each open context is held to; owner-only routes need none. */
const declared: Record<
  Exclude<AccessLevel, 'owner'>,
  { list: readonly string[]; name: string; context: string }
> = {
  public: { list: publicRoutes, name: 'publicRoutes', context: 'publicAccess' },
  agentOrOwner: { list: agentRoutes, name: 'agentRoutes', context: 'agentAccess' },
};

/** Registers `routes` in a context whose every route has `level`. */
function withAccess<Options extends FastifyPluginOptions>(
  level: AccessLevel,
  routes: FastifyPluginAsyncTypebox<Options>,
): FastifyPluginAsyncTypebox<Options> {
  const plugin: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (level !== 'owner') {
        const { list, name, context } = declared[level];
        const missing = methods.filter((method) => !list.includes(routeKey(method, route.url)));
        if (missing.length > 0) {
          throw new Error(`${missing[0]} ${route.url} is registered in ${context} but is not in ${name}`);
        }
      }
      route.config = { ...route.config, access: level };
    });
    await routes(app, options);
  };
  // Named for Fastify: a plugin without a name makes it search every loaded CommonJS module for one at each
  // registration (about 140 of them per app).
  Object.defineProperty(plugin, Symbol.for('fastify.display-name'), {
    value: `${level}: ${routes.name || 'routes'}`,
  });
  return plugin;
}

/** Routes only the owner may call: an agent gets 403 OWNER_ONLY, nobody 401. The default; this says it out loud. */
export function ownerOnly<Options extends FastifyPluginOptions>(
  routes: FastifyPluginAsyncTypebox<Options>,
): FastifyPluginAsyncTypebox<Options> {
  return withAccess('owner', routes);
}

/**
 * Routes agents may call too (each must be in agentRoutes): any valid agent token, its space scope, tier and rate
 * limit holding; the owner as everywhere.
 */
export function agentAccess<Options extends FastifyPluginOptions>(
  routes: FastifyPluginAsyncTypebox<Options>,
): FastifyPluginAsyncTypebox<Options> {
  return withAccess('agentOrOwner', routes);
}

/** Routes anyone may call (each must be in publicRoutes); the principal is still identified when credentials come. */
export function publicAccess<Options extends FastifyPluginOptions>(
  routes: FastifyPluginAsyncTypebox<Options>,
): FastifyPluginAsyncTypebox<Options> {
  return withAccess('public', routes);
}

function unauthorized(request: FastifyRequest): Error {
  return hubError('UNAUTHORIZED', request.badCredentials ? 'invalid credentials' : 'authentication required');
}

/**
 * What failures are counted against: the client's address as TRUST_PROXY lets Fastify read it. An IPv6 client owns
 * its whole /64 (a host picks any address in it), so the /64 is counted; IPv4-mapped addresses count as IPv4.
 */
export function failureKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const prefix = address.toByteArray().slice(0, 8);
  return `${ipaddr.fromByteArray([...prefix, 0, 0, 0, 0, 0, 0, 0, 0]).toString()}/64`;
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

/** The one access check, run for every matched route. A route registered in no context is the owner's. */
async function enforceAccess(request: FastifyRequest): Promise<void> {
  if (request.is404) return;
  const config = request.routeOptions.config;
  const level = config.access ?? 'owner';
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
    const { failures } = options;

    /**
     * A request that tries a secret (any Authorization header, a sign-in) from an address past its failure limit is
     * refused before the secret is looked at, so a right guess reads the same as a wrong one. The refusal is logged
     * once per address and window (never with what was tried); the rest of that address's refused requests are not.
     */
    async function throttle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const tries =
        request.headers.authorization !== undefined || request.routeOptions.config.checksSecret === true;
      // Liveness, readiness and the version answer while the database, which keeps the count, is away.
      if (!tries || request.is404 || routesWithoutDatabase.has(request.routeOptions.url ?? '')) return;
      const address = failureKey(request.ip);
      const { retryAfter, firstRefusal } = await failures.check(address);
      if (retryAfter === 0) return;
      if (firstRefusal) {
        request.log.warn(
          { address, retry_after_s: retryAfter },
          'too many failed sign-ins or wrong tokens from this address: refused until the window ends',
        );
      }
      request.log.level = 'silent';
      reply.header('retry-after', String(retryAfter));
      throw hubError('TOO_MANY_FAILURES', retryAfter);
    }

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
            conversationId: owner.conversation_id,
          };
          return;
        }
      }
      const secret = request.cookies[sessionCookie];
      if (token === undefined && secret && options.findSession) {
        const session = await options.findSession(hashToken(secret));
        if (session) {
          request.principal = {
            kind: 'owner',
            via: 'session',
            sessionId: session.id,
            expiresAt: session.expires_at,
          };
          return;
        }
      }
      request.badCredentials = token !== undefined || hasAssertion;
      // A wrong bearer token is a guess, on any route (a public one can tell a right token from a wrong one too),
      // unless the route takes a secret of its own and judges it itself. An access-proxy assertion is checked by
      // its signature, not guessed.
      const judgedByRoute = request.routeOptions.config.checksSecret === true;
      if (request.headers.authorization !== undefined && !judgedByRoute && !request.is404) {
        await failures.fail(failureKey(request.ip));
      }
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
          access: route.config?.access ?? 'owner',
          readOnly: route.config?.readOnly === true,
        })),
      ),
    );

    app.addHook('onRequest', throttle);
    app.addHook('onRequest', identify);
    app.addHook('onRequest', checkOrigin);
    app.addHook('onRequest', enforceAccess);
    // A secret a route refused (a sign-in, a metrics or webhook token) counts like a wrong bearer token.
    app.addHook('onSend', async (request, reply) => {
      if (request.routeOptions.config.checksSecret === true && reply.statusCode === 401) {
        await failures.fail(failureKey(request.ip));
      }
    });

    // Per-agent limit; the owner and anonymous callers are not counted here. Counted before the body is parsed
    // and validated, so an agent's malformed requests use up its budget too.
    await app.register(rateLimit, {
      global: true,
      hook: 'preParsing',
      max: options.agentRateLimitPerMinute,
      timeWindow: 60_000,
      store: sharedRateStore(options.rates),
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
