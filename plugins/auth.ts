// Who is calling. Every request gets a principal: the owner (bearer token or access-proxy JWT), an agent (its own
// bearer token) or nobody. Routes pick a level with the hooks decorated here; see DESIGN.md section 5.

import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Sql } from 'postgres';
import { findTokenOwner, type Tier } from '../domains/agents/store.ts';
import type { AccessVerifier } from '../lib/access-jwt.ts';
import { constantTimeEqual, hashToken } from '../lib/secrets.ts';

export type Principal =
  | { kind: 'owner'; via: 'token' | 'access'; email?: string }
  | { kind: 'agent'; agentId: string; name: string; tier: Tier; spaceId: string | null; tokenId: string };

export type AgentPrincipal = Extract<Principal, { kind: 'agent' }>;

export interface AuthOptions {
  sql: Sql;
  ownerToken: string;
  access: AccessVerifier | null;
  agentRateLimitPerMinute: number;
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Credentials were sent but did not identify anyone. */
    badCredentials: boolean;
  }
  interface FastifyInstance {
    /** Lets anyone through; the principal is known when credentials were sent. */
    soft: Hook;
    owner: Hook;
    agentOrOwner: Hook;
  }
}

export const agentTokenPrefix = 'hub_agent';

function bearer(request: FastifyRequest): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

function fail(statusCode: number, message: string): Error {
  return Object.assign(new Error(message), {
    statusCode,
    code: statusCode === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN',
  });
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
        const owner = await findTokenOwner(options.sql, hash);
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
      request.badCredentials = token !== undefined || hasAssertion;
    }

    app.addHook('onRequest', identify);

    app.decorate('soft', async () => undefined);
    app.decorate('owner', async (request: FastifyRequest) => {
      if (request.principal?.kind === 'owner') return;
      if (request.principal?.kind === 'agent') throw fail(403, 'this route is for the owner only');
      throw fail(401, request.badCredentials ? 'invalid credentials' : 'authentication required');
    });
    app.decorate('agentOrOwner', async (request: FastifyRequest) => {
      if (request.principal) return;
      throw fail(401, request.badCredentials ? 'invalid credentials' : 'authentication required');
    });

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

/** Whether an agent may see or act in a space: unscoped agents reach every space. */
export function agentCanReachSpace(principal: Principal | null, spaceId: string | null | undefined): boolean {
  if (principal?.kind !== 'agent') return principal?.kind === 'owner';
  return principal.spaceId === null || principal.spaceId === spaceId;
}
