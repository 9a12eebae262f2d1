// One assistant turn without a browser: a worker job (a routine, an incident's diagnosis) runs an agent on a prompt
// with a view. The turn gets its own token (the agent's tier, the space as its scope, no conversation: it finds none
// of the owner's messages), reaches the hub's tools over HTTP at /api/mcp (the worker may be another process), and
// answers what the agent said, the tools it called, the drafts its writes became and its usage, recorded as a chat
// turn's is. Writes follow the agent's tier exactly as in a chat: a suggest-tier agent's page is a pending change.
import type { Config } from '../../config/index.ts';
import { hubError } from '../../lib/errors.ts';
import type { Sql } from '../../plugins/db.ts';
import type { AgentRow } from '../agents/turn-token.ts';
import { mintTurnToken, revokeTurnToken } from '../agents/turn-token.ts';
import { integrationSettings } from '../integrations/resolve.ts';
import type { RunnerEvent } from './events.ts';
import { hubTools } from './hub-tools.ts';
import { runnerFor } from './runners.ts';
import { draftOf } from './turn.ts';
import { recordTurnUsage, turnModel } from './usage.ts';

export interface HeadlessTurn {
  agent: AgentRow;
  prompt: string;
  /** What the turn is about (a routine's period of the timeline, an incident), given to the agent as JSON. */
  view: unknown;
  spaceId: string | null;
  /** Stops the turn early (a job being cancelled); the runner's own timeout holds regardless. */
  signal?: AbortSignal;
}

export interface HeadlessToolCall {
  id: string;
  name: string;
  arguments: unknown;
  content?: string;
  is_error?: boolean;
}

export interface HeadlessTurnResult {
  ok: boolean;
  text: string;
  tools: HeadlessToolCall[];
  /** The pending changes and actions the agent's writes became. */
  drafts: string[];
  usage: { model: string; input_tokens: number; output_tokens: number; latency_ms: number };
  /** What went wrong, when not ok. */
  error: string | null;
}

/** Where a process of the hub reaches its tool protocol over HTTP: the configured hub URL, else the server's port. */
export function hubMcpUrl(config: Config): string {
  if (config.assistant.hubUrl) return `${config.assistant.hubUrl}/api/mcp`;
  return `http://127.0.0.1:${config.server.port}/api/mcp`;
}

export async function runHeadlessTurn(
  deps: { sql: Sql; config: Config },
  turn: HeadlessTurn,
): Promise<HeadlessTurnResult> {
  const { sql } = deps;
  const settings = (await integrationSettings(deps, 'assistant'))?.settings ?? null;
  const runner = runnerFor(settings);
  if (!settings || !runner) throw hubError('ASSISTANT_NOT_CONFIGURED');
  if (turn.agent.status !== 'active') throw hubError('AGENT_DISABLED', turn.agent.name);
  const mcpUrl = hubMcpUrl(deps.config);
  const token = await mintTurnToken(
    sql,
    { agentId: turn.agent.id, spaceId: turn.spaceId, conversationId: null },
    settings.timeoutMs + 60_000,
  );
  const persona = turn.agent.persona.trim() || `You are ${turn.agent.display_name}, the owner's assistant.`;
  const view = `What this turn is about (JSON):\n${JSON.stringify(turn.view ?? null)}`;
  const system =
    `${persona}\n\n${view}\n\nNo one is watching this turn: do what the owner asks below, using the tools to read ` +
    'and change the knowledge store. Writes you make may become drafts the owner approves.';
  const tools: HeadlessToolCall[] = [];
  const drafts: string[] = [];
  const errors: string[] = [];
  let text = '';
  let usage: Extract<RunnerEvent, { type: 'usage' }> | null = null;
  const started = Date.now();
  try {
    const events = runner({
      prompt: `${persona}\n\n${view}\n\nThe owner asks:\n${turn.prompt}`,
      system,
      history: [],
      message: turn.prompt,
      mcpUrl,
      token: token.token,
      signal: turn.signal ?? new AbortController().signal,
      tools: hubTools(token.token, async (payload, headers) => {
        const response = await fetch(mcpUrl, { method: 'POST', headers, body: JSON.stringify(payload) });
        return { statusCode: response.status, body: await response.text() };
      }),
    });
    for await (const event of events) {
      if (event.type === 'message') text += event.text;
      else if (event.type === 'tool_call')
        tools.push({ id: event.id, name: event.name, arguments: event.arguments });
      else if (event.type === 'tool_result') {
        const call = tools.find((tool) => tool.id === event.id);
        if (call) Object.assign(call, { content: event.content, is_error: event.is_error });
        const draft = await draftOf(sql, event);
        if (draft)
          drafts.push('pending_change_id' in draft ? draft.pending_change_id : draft.pending_action_id);
      } else if (event.type === 'usage') usage = event;
      else errors.push(event.message);
    }
  } catch (error) {
    errors.push((error as Error).message);
  } finally {
    await revokeTurnToken(sql, token.id);
  }
  const latency = Date.now() - started;
  const model = turnModel(settings, usage);
  const ok = errors.length === 0;
  await recordTurnUsage(sql, { agentId: turn.agent.id, runner: settings, usage, latencyMs: latency, ok });
  return {
    ok,
    text,
    tools,
    drafts,
    usage: {
      model,
      input_tokens: usage?.input_tokens ?? 0,
      output_tokens: usage?.output_tokens ?? 0,
      latency_ms: latency,
    },
    error: ok ? null : errors.join('; '),
  };
}
