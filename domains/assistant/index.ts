// The assistant: streamed turns with the agents that work for the owner, their history, and the assistant settings.
// Every route runs agents on the owner's behalf, so every route is the owner's. Routes:
//   POST /api/spaces/:id/companion/turn      a turn with the space's companion (SSE)
//   GET  /api/spaces/:id/companion/history   its messages (?limit=&before=)
//   PUT  /api/spaces/:id/companion           which agent is the space's companion ({ agent_id } or null)
//   POST /api/assistant/turn                 a turn with the global assistant (SSE)
//   GET  /api/assistant/history
//   POST /api/security/:agent                a turn with a security agent (by name; needs the security capability)
//   POST /api/infra/chat                     a turn with the infrastructure agent
//   GET  /api/assistant/settings             avatar, accent, persona, voice mode, agents
//   PUT  /api/assistant/settings
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import {
  type AgentRow,
  ensureAgent,
  findAgent,
  findAgentByName,
  findAgentWithCapability,
} from '../agents/turn-token.ts';
import { readSetting, writeSetting } from '../settings/registry.ts';
import {
  AssistantSettings,
  AssistantSettingsWrite,
  CompanionBody,
  History,
  HistoryQuery,
  Message,
  TurnBody,
} from './schema.ts';
import { assistantSetting } from './setting.ts';
import { findConversationOf, findSpaceCompanion, messagesBefore, setSpaceCompanion } from './store.ts';
import { runTurn, type TurnTarget } from './turn.ts';

const tags = ['assistant'];

const builtIn = {
  name: 'assistant',
  display_name: 'Assistant',
  persona:
    'You are the owner’s assistant in their operations hub: brief, precise, and careful with their data.',
  tier: 'suggest' as const,
  capabilities: ['search'],
};

/** The agent of the global assistant and of companions without their own: the settings’ or the built-in one. */
async function assistantAgent(sql: Db): Promise<AgentRow> {
  const settings = await readSetting(sql, assistantSetting);
  if (settings.agent_id) {
    const chosen = await findAgent(sql, settings.agent_id);
    if (chosen) return chosen;
  }
  return ensureAgent(sql, builtIn);
}

function active(agent: AgentRow): AgentRow {
  if (agent.status !== 'active') throw hubError('AGENT_DISABLED', agent.name);
  return agent;
}

async function companionTarget(sql: Db, spaceId: string): Promise<TurnTarget> {
  const space = await findSpaceCompanion(sql, spaceId);
  if (!space) throw hubError('SPACE_NOT_FOUND', spaceId);
  const own = space.companion_agent_id ? await findAgent(sql, space.companion_agent_id) : undefined;
  const agent = active(own ?? (await assistantAgent(sql)));
  if (agent.space_id && agent.space_id !== spaceId) throw hubError('AGENT_OUT_OF_SPACE', agent.name);
  return { agent, spaceId, persona: agent.persona };
}

async function globalTarget(sql: Db): Promise<TurnTarget> {
  const settings = await readSetting(sql, assistantSetting);
  const agent = active(await assistantAgent(sql));
  return { agent, spaceId: null, persona: settings.persona.trim() || agent.persona };
}

async function securityTarget(sql: Db, name: string): Promise<TurnTarget> {
  const agent = await findAgentByName(sql, name);
  if (!agent) throw hubError('AGENT_NOT_FOUND', name);
  if (!agent.capabilities.includes('security')) throw hubError('CAPABILITY_MISSING', name, 'security');
  return { agent: active(agent), spaceId: null, persona: agent.persona };
}

async function infraTarget(sql: Db): Promise<TurnTarget> {
  const settings = await readSetting(sql, assistantSetting);
  const chosen = settings.infra_agent_id ? await findAgent(sql, settings.infra_agent_id) : undefined;
  const agent = chosen ?? (await findAgentWithCapability(sql, 'infra'));
  if (!agent) throw hubError('INFRA_AGENT_MISSING');
  return { agent: active(agent), spaceId: null, persona: agent.persona };
}

const turnSchema = (summary: string, params?: ReturnType<typeof Type.Object>) => ({
  schema: {
    tags,
    summary,
    description:
      'Answers text/event-stream: message ({ text }), tool_call ({ id, name, arguments }), tool_result ({ id, ' +
      'content, is_error }), draft ({ pending_change_id, action, entity_type, summary }), usage ({ model, ' +
      'input_tokens, output_tokens, latency_ms }), error ({ message }) and done; a comment heartbeat every 15 s. ' +
      'No runner configured: 503 ASSISTANT_NOT_CONFIGURED; a turn already running in this conversation: 409.',
    ...(params ? { params } : {}),
    body: TurnBody,
    produces: ['text/event-stream'],
    response: {
      200: Type.String({ description: 'text/event-stream' }),
      ...errors(400, 401, 403, 404, 409, 503),
    },
  },
});

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Message);

  async function history(target: TurnTarget, query: HistoryQuery) {
    const conversation = await findConversationOf(app.sql, target.agent.id, target.spaceId);
    const page = conversation
      ? await messagesBefore(app.sql, conversation.id, query)
      : { items: [], has_more: false };
    const { id, name, display_name } = target.agent;
    return { conversation_id: conversation?.id ?? null, agent: { id, name, display_name }, ...page };
  }

  app.post(
    '/spaces/:id/companion/turn',
    turnSchema('A turn with the space’s companion', IdParams),
    async (request, reply) => {
      const { id } = request.params as IdParams;
      return runTurn(app, reply, await companionTarget(app.sql, id), request.body);
    },
  );

  app.get(
    '/spaces/:id/companion/history',
    {
      schema: {
        tags,
        summary: 'The companion conversation of a space',
        params: IdParams,
        querystring: HistoryQuery,
        response: { 200: History, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => history(await companionTarget(app.sql, request.params.id), request.query),
  );

  app.put(
    '/spaces/:id/companion',
    {
      schema: {
        tags,
        summary: 'Choose the space’s companion agent (null: the assistant settings’ agent)',
        params: IdParams,
        body: CompanionBody,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { agent_id } = request.body;
      if (agent_id && !(await findAgent(app.sql, agent_id))) throw hubError('AGENT_NOT_FOUND', agent_id);
      if (!(await setSpaceCompanion(app.sql, request.params.id, agent_id))) {
        throw hubError('SPACE_NOT_FOUND', request.params.id);
      }
      return reply.status(204).send(null);
    },
  );

  app.post('/assistant/turn', turnSchema('A turn with the global assistant'), async (request, reply) =>
    runTurn(app, reply, await globalTarget(app.sql), request.body),
  );

  app.get(
    '/assistant/history',
    {
      schema: {
        tags,
        summary: 'The global assistant’s conversation',
        querystring: HistoryQuery,
        response: { 200: History, ...errors(400, 401, 403) },
      },
    },
    async (request) => history(await globalTarget(app.sql), request.query),
  );

  app.post(
    '/security/:agent',
    turnSchema(
      'A turn with a security agent',
      Type.Object({
        agent: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'the agent’s name' }),
      }),
    ),
    async (request, reply) => {
      const { agent } = request.params as { agent: string };
      return runTurn(app, reply, await securityTarget(app.sql, agent), request.body);
    },
  );

  app.post('/infra/chat', turnSchema('A turn with the infrastructure agent'), async (request, reply) =>
    runTurn(app, reply, await infraTarget(app.sql), request.body),
  );

  app.get(
    '/assistant/settings',
    {
      schema: {
        tags,
        summary: 'Assistant settings',
        response: { 200: AssistantSettings, ...errors(401, 403) },
      },
    },
    async () => readSetting(app.sql, assistantSetting),
  );

  app.put(
    '/assistant/settings',
    {
      schema: {
        tags,
        summary: 'Change the assistant settings',
        description:
          'avatar: an iconRef (brand:<slug>, set:<set>:<name>) or an emoji; accent: a hex colour. agent_id and ' +
          'infra_agent_id may be left out: they keep their values.',
        body: AssistantSettingsWrite,
        response: { 200: AssistantSettings, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      for (const field of ['agent_id', 'infra_agent_id'] as const) {
        const id = request.body[field];
        if (id && !(await findAgent(app.sql, id))) throw hubError('AGENT_NOT_FOUND', id);
      }
      const current = await readSetting(app.sql, assistantSetting);
      const next = { ...current, ...request.body };
      return (await writeSetting(app.sql, assistantSetting, next)).value as AssistantSettings;
    },
  );
};

export default {
  name: 'assistant',
  routes: ownerOnly(plugin),
  settings: [assistantSetting],
} satisfies HubModule;
