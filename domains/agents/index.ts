// Agents and their tokens. The owner manages both; an agent may read its own profile.
//
// Routes it registers (access in brackets):
//   GET    /api/agents/:id/profile  [agent or owner]
//   GET    /api/agents              [owner only]
//   POST   /api/agents              [owner only]
//   GET    /api/agents/:id          [owner only]
//   PATCH  /api/agents/:id          [owner only]
//   DELETE /api/agents/:id          [owner only]
//   GET    /api/agent-tokens        [owner only]
//   POST   /api/agent-tokens        [owner only]
//   DELETE /api/agent-tokens/:id    [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent, PageQuery } from '../../lib/schemas.ts';
import { hashToken, newToken } from '../../lib/secrets.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, agentTokenPrefix, ownerOnly } from '../../plugins/auth.ts';
import {
  Agent,
  AgentInput,
  AgentList,
  AgentPatch,
  AgentProfile,
  AgentToken,
  MintedToken,
  MintToken,
  TokenList,
  TokenListQuery,
} from './schema.ts';
import {
  deleteAgent,
  findAgent,
  insertAgent,
  insertToken,
  listAgents,
  listTokens,
  revokeToken,
  updateAgent,
} from './store.ts';

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Agent);
  app.addSchema(AgentToken);
  const tags = ['agents'];

  await app.register(
    agentAccess(async (agents) => {
      agents.get(
        '/agents/:id/profile',
        {
          schema: {
            tags,
            summary: 'Persona and capabilities of an agent',
            params: IdParams,
            response: { 200: AgentProfile, ...errors(401, 403, 404) },
          },
        },
        async (request) => {
          const principal = request.principal;
          if (principal?.kind === 'agent' && principal.agentId !== request.params.id) {
            throw hubError('NOT_OWN_PROFILE');
          }
          const agent = await findAgent(app.sql, request.params.id);
          if (!agent) throw hubError('AGENT_NOT_FOUND');
          return agent;
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.get(
        '/agents',
        {
          schema: {
            tags,
            summary: 'List agents',
            querystring: PageQuery,
            response: { 200: AgentList, ...errors(401, 403) },
          },
        },
        async (request) => ({
          ...(await listAgents(app.sql, request.query.limit, request.query.offset)),
          ...request.query,
        }),
      );

      owner.post(
        '/agents',
        {
          schema: {
            tags,
            summary: 'Create an agent',
            body: AgentInput,
            response: { 201: Type.Ref('Agent'), ...errors(400, 401, 403, 409) },
          },
        },
        async (request, reply) => reply.status(201).send(await insertAgent(app.sql, request.body)),
      );

      owner.get(
        '/agents/:id',
        {
          schema: {
            tags,
            summary: 'Get an agent',
            params: IdParams,
            response: { 200: Type.Ref('Agent'), ...errors(401, 403, 404) },
          },
        },
        async (request) => {
          const agent = await findAgent(app.sql, request.params.id);
          if (!agent) throw hubError('AGENT_NOT_FOUND');
          return agent;
        },
      );

      owner.patch(
        '/agents/:id',
        {
          schema: {
            tags,
            summary: 'Change an agent (tier, scope, persona, status...)',
            params: IdParams,
            body: AgentPatch,
            response: { 200: Type.Ref('Agent'), ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) => {
          const agent = await updateAgent(app.sql, request.params.id, request.body);
          if (!agent) throw hubError('AGENT_NOT_FOUND');
          return agent;
        },
      );

      owner.delete(
        '/agents/:id',
        {
          schema: {
            tags,
            summary: 'Delete an agent and its tokens',
            params: IdParams,
            response: { 204: NoContent, ...errors(401, 403, 404) },
          },
        },
        async (request, reply) => {
          if (!(await deleteAgent(app.sql, request.params.id))) throw hubError('AGENT_NOT_FOUND');
          return reply.status(204).send(null);
        },
      );

      owner.get(
        '/agent-tokens',
        {
          schema: {
            tags,
            summary: 'List agent tokens (never the secrets)',
            querystring: TokenListQuery,
            response: { 200: TokenList, ...errors(401, 403) },
          },
        },
        async (request) => {
          const { agent_id, limit, offset } = request.query;
          return { ...(await listTokens(app.sql, agent_id, limit, offset)), limit, offset };
        },
      );

      owner.post(
        '/agent-tokens',
        {
          schema: {
            tags,
            summary: 'Mint a token for an agent; the plaintext is in this response only',
            body: MintToken,
            response: { 201: MintedToken, ...errors(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          const { agent_id, label, expires_at } = request.body;
          if (!(await findAgent(app.sql, agent_id))) throw hubError('AGENT_NOT_FOUND');
          const expires = expires_at ? new Date(expires_at) : null;
          if (expires && expires.getTime() <= Date.now())
            throw hubError('VALIDATION_FAILED', 'expires_at must be in the future');
          const token = newToken(agentTokenPrefix);
          const row = await insertToken(app.sql, {
            agent_id,
            label: label ?? '',
            hash: hashToken(token),
            prefix: token.slice(0, agentTokenPrefix.length + 7),
            expires_at: expires,
          });
          return reply.status(201).send({ ...row, token });
        },
      );

      owner.delete(
        '/agent-tokens/:id',
        {
          schema: {
            tags,
            summary: 'Revoke a token',
            params: IdParams,
            response: { 204: NoContent, ...errors(401, 403, 404) },
          },
        },
        async (request, reply) => {
          if (!(await revokeToken(app.sql, request.params.id))) throw hubError('AGENT_TOKEN_NOT_FOUND');
          return reply.status(204).send(null);
        },
      );
    }),
  );
};

export default {
  name: 'agents',
  routes: plugin,
} satisfies HubModule;
