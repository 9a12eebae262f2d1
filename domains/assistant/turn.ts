// One assistant turn: claim the conversation (one turn at a time), store the owner's message, mint a turn token,
// run the runner and stream its events as SSE (message, tool_call, tool_result, draft, usage, error, done), then store
// the assistant's message with the tools it called, record the usage, revoke the token and release the conversation.
// A turn ends when its client goes away: the runner is told to stop (its program is killed) but not waited for, since
// a program can take its time to be reaped, or leave its output held open by something it started.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { hubError } from '../../lib/errors.ts';
import { openEventStream } from '../../lib/sse.ts';
import type { Sql } from '../../plugins/db.ts';
import { describeActionDraft } from '../actions/run.ts';
import type { AgentRow } from '../agents/turn-token.ts';
import { mintTurnToken, revokeTurnToken } from '../agents/turn-token.ts';
import { integrationSettings } from '../integrations/resolve.ts';
import { describeDraft } from '../pending-changes/governance.ts';
import { recordEvent } from '../timeline/record.ts';
import { pendingActionIdOf, pendingChangeIdOf, type RunnerEvent } from './events.ts';
import { hubTools } from './hub-tools.ts';
import { type RunnerInput, runnerFor } from './runners.ts';
import type { TurnBody } from './schema.ts';
import { claimTurn, conversationOf, insertMessage, recentMessages, releaseTurn } from './store.ts';
import { recordTurnUsage, turnModel } from './usage.ts';

export interface TurnTarget {
  agent: AgentRow;
  spaceId: string | null;
  persona: string;
}

/**
 * Turns whose client went away and that are recording what was said before they release their conversation, by
 * conversation, per app. A next turn in that conversation waits for this rather than being refused as in progress.
 */
const wrappingUp = new WeakMap<FastifyInstance, Map<string, Promise<void>>>();

/** The runner's events until `signal` aborts; then at once, leaving the runner to stop in the background. */
async function* untilAborted<T>(events: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = events[Symbol.asyncIterator]();
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === 'aborted' || next.done) return;
      yield next.value;
    }
  } finally {
    // Not awaited: a runner that is still stopping must not hold the turn.
    iterator.return?.().catch(() => undefined);
  }
}

/** Claims the conversation; a turn that lost its client and is wrapping up is waited for, not reported busy. */
async function claim(app: FastifyInstance, conversationId: string, staleAfterMs: number): Promise<boolean> {
  if (await claimTurn(app.sql, conversationId, staleAfterMs)) return true;
  const ending = wrappingUp.get(app)?.get(conversationId);
  if (!ending) return false;
  await ending;
  return claimTurn(app.sql, conversationId, staleAfterMs);
}

/** Where a runner on this machine reaches the hub's tool protocol. */
function mcpUrl(app: FastifyInstance): string {
  if (app.config.assistant.hubUrl) return `${app.config.assistant.hubUrl}/api/mcp`;
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : app.config.server.port;
  return `http://127.0.0.1:${port}/api/mcp`;
}

/** The hub's tools as the turn's agent: /api/mcp called in-process. */
function toolsAs(app: FastifyInstance, token: string): RunnerInput['tools'] {
  return hubTools(token, async (payload, headers) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers,
      payload: payload as object,
    });
    return { statusCode: response.statusCode, body: response.body };
  });
}

function promptOf(target: TurnTarget, body: TurnBody, history: { role: string; content: string }[]): string {
  const parts = [target.persona.trim() || `You are ${target.agent.display_name}, the owner's assistant.`];
  if (body.view) parts.push(`The owner is looking at (JSON):\n${JSON.stringify(body.view)}`);
  if (history.length > 0) {
    parts.push(`The conversation so far:\n${history.map((m) => `${m.role}: ${m.content}`).join('\n')}`);
  }
  parts.push(`The owner says:\n${body.message}`);
  return parts.join('\n\n');
}

function systemOf(target: TurnTarget, body: TurnBody): string {
  const persona = target.persona.trim() || `You are ${target.agent.display_name}, the owner's assistant.`;
  const view = body.view ? `\n\nThe owner is looking at (JSON):\n${JSON.stringify(body.view)}` : '';
  return (
    `${persona}${view}\n\nUse the tools to read and change the owner's knowledge store. Writes you make may ` +
    'become drafts the owner approves; say so when that happens.'
  );
}

/**
 * The draft a tool result stands for: a hub write that became a pending change, or a downstream MCP call waiting
 * for approval as a pending action. Malformed content is simply no draft: the stream goes on.
 */
export async function draftOf(sql: Sql, result: { content: string; structured?: unknown }) {
  const changeId = pendingChangeIdOf(result);
  if (changeId) return describeDraft(sql, changeId).catch(() => null);
  const actionId = pendingActionIdOf(result);
  return actionId ? describeActionDraft(sql, actionId).catch(() => null) : null;
}

export async function runTurn(app: FastifyInstance, reply: FastifyReply, target: TurnTarget, body: TurnBody) {
  const config = (await integrationSettings(app, 'assistant'))?.settings ?? null;
  const runner = runnerFor(config);
  if (!config || !runner) throw hubError('ASSISTANT_NOT_CONFIGURED');
  const sql = app.sql;
  const conversation = await conversationOf(sql, target.agent.id, target.spaceId);
  if (!(await claim(app, conversation.id, config.timeoutMs + 60_000))) {
    throw hubError('TURN_IN_PROGRESS');
  }
  let tokenId: string | null = null;
  let finished = false;
  let wrappedUp: () => void = () => undefined;
  const wrapUp = new Promise<void>((resolve) => {
    wrappedUp = resolve;
  });
  const ending = wrappingUp.get(app) ?? new Map<string, Promise<void>>();
  wrappingUp.set(app, ending);
  const finish = async () => {
    if (finished) return;
    finished = true;
    try {
      if (tokenId) await revokeTurnToken(sql, tokenId);
      await releaseTurn(sql, conversation.id);
    } finally {
      if (ending.get(conversation.id) === wrapUp) ending.delete(conversation.id);
      wrappedUp();
    }
  };
  try {
    const history = (await recentMessages(sql, conversation.id, config.historyMessages))
      .filter((message) => message.role === 'user' || message.role === 'assistant')
      .map((message) => ({ role: message.role as 'user' | 'assistant', content: message.content }));
    await insertMessage(sql, {
      conversation_id: conversation.id,
      role: 'user',
      content: body.message,
      metadata: body.view ? { view: body.view } : {},
    });
    const turnToken = await mintTurnToken(
      sql,
      { agentId: target.agent.id, spaceId: target.spaceId, conversationId: conversation.id },
      config.timeoutMs + 60_000,
    );
    tokenId = turnToken.id;

    const stream = openEventStream(reply);
    stream.signal.addEventListener('abort', () => ending.set(conversation.id, wrapUp), { once: true });
    const started = Date.now();
    let text = '';
    let ok = true;
    let usage: Extract<RunnerEvent, { type: 'usage' }> | null = null;
    const tools: { id: string; name: string; arguments: unknown; content?: string; is_error?: boolean }[] =
      [];
    const drafts: string[] = [];
    try {
      const events = runner({
        prompt: promptOf(target, body, history),
        system: systemOf(target, body),
        history,
        message: body.message,
        mcpUrl: mcpUrl(app),
        token: turnToken.token,
        signal: stream.signal,
        tools: toolsAs(app, turnToken.token),
      });
      for await (const event of untilAborted(events, stream.signal)) {
        if (event.type === 'message') {
          text += event.text;
          stream.send('message', { text: event.text });
        } else if (event.type === 'tool_call') {
          tools.push({ id: event.id, name: event.name, arguments: event.arguments });
          stream.send('tool_call', { id: event.id, name: event.name, arguments: event.arguments });
        } else if (event.type === 'tool_result') {
          const call = tools.find((tool) => tool.id === event.id);
          if (call) Object.assign(call, { content: event.content, is_error: event.is_error });
          stream.send('tool_result', { id: event.id, content: event.content, is_error: event.is_error });
          const draft = await draftOf(sql, event);
          if (draft) {
            drafts.push('pending_change_id' in draft ? draft.pending_change_id : draft.pending_action_id);
            stream.send('draft', draft);
          }
        } else if (event.type === 'usage') {
          usage = event;
        } else {
          ok = false;
          stream.send('error', { message: event.message });
        }
      }
    } catch (error) {
      ok = false;
      app.log.error({ err: error }, 'assistant turn failed');
      stream.send('error', { message: 'the turn failed' });
    }
    const latency = Date.now() - started;
    const model = turnModel(config, usage);
    stream.send('usage', {
      model,
      input_tokens: usage?.input_tokens ?? 0,
      output_tokens: usage?.output_tokens ?? 0,
      latency_ms: latency,
    });
    const interrupted = stream.signal.aborted;
    await sql.begin(async (tx) => {
      await insertMessage(tx, {
        conversation_id: conversation.id,
        role: 'assistant',
        content: text,
        metadata: {
          tools,
          drafts,
          model,
          ok: ok && !interrupted,
          ...(interrupted ? { interrupted: true } : {}),
        },
      });
      // The words stay in the conversation: the timeline, which agents read, tells only that the turn happened.
      await recordEvent(tx, {
        kind: 'assistant.turn',
        severity: ok && !interrupted ? 'info' : 'warning',
        title:
          `${target.agent.name} answered` +
          `${tools.length ? ` (${tools.length} tool call${tools.length === 1 ? '' : 's'})` : ''}` +
          `${drafts.length ? `, ${drafts.length} draft${drafts.length === 1 ? '' : 's'} to review` : ''}` +
          `${interrupted ? ', interrupted' : ok ? '' : ', with an error'}`,
        subject: { type: 'conversation', id: conversation.id },
        actor: { agent: target.agent.id },
        space_id: target.spaceId,
        data: {
          tools: tools.map((tool) => tool.name),
          drafts,
          model,
          latency_ms: latency,
          ok: ok && !interrupted,
        },
      });
    });
    await recordTurnUsage(sql, {
      agentId: target.agent.id,
      runner: config,
      usage,
      latencyMs: latency,
      ok: ok && !interrupted,
    });
    // The conversation is free and the token dead before the client hears `done`, so a next turn never finds it busy.
    await finish();
    stream.send('done', { conversation_id: conversation.id });
    stream.end();
  } finally {
    await finish();
  }
}
