// The actions domain's tools: an agent asks the owner to run one of the modules' runnable actions, and reads what
// became of an action it asked for (an approved downstream MCP call keeps its result).
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { IdArgs, type Tool, tool } from '../mcp/tool.ts';
import { runAction } from './run.ts';
import { RunAction } from './schema.ts';
import { findPendingAction } from './store.ts';

export const actionTools: Tool[] = [
  tool({
    name: 'propose_action',
    title: 'Propose an action',
    description:
      'Ask the owner to run a task (the actions POST /api/actions/run lists); params are its payload. An agent’s proposal ' +
      'waits for the owner’s approval ({ action_id, status: "pending" }); the owner’s own call runs it at once.',
    input: RunAction,
    output: Type.Object({
      action_id: Type.Optional(Type.String()),
      job_id: Type.Optional(Type.String()),
      status: Type.String(),
    }),
    readOnly: false,
    async run(args, ctx) {
      if (ctx.principal.kind === 'agent' && ctx.principal.tier === 'read') {
        throw hubError('TIER_CANNOT_WRITE', ctx.principal.tier);
      }
      const outcome = await runAction(
        ctx.sql,
        ctx.actions,
        ctx.principal,
        args,
        ctx.env.config ? { config: ctx.env.config } : undefined,
      );
      return outcome.started
        ? { job_id: outcome.job_id, status: 'queued' }
        : { action_id: outcome.action.id, status: 'pending' };
    },
  }),
  tool({
    name: 'get_action_result',
    title: 'Read an action’s outcome',
    description:
      'What became of an action you asked for, by its id (action_id or pending_action_id): pending, approved ' +
      '(with the downstream call’s result, as the tool answered it) or rejected (with the reason).',
    input: IdArgs,
    output: Type.Object({
      id: Type.String(),
      action: Type.String(),
      status: Type.String(),
      result: Type.Unknown(),
      reason: Type.Union([Type.String(), Type.Null()]),
      error: Type.Union([Type.String(), Type.Null()]),
    }),
    readOnly: true,
    async run(args, ctx) {
      const action = await findPendingAction(ctx.sql, args.id);
      // An agent reads only its own actions; another's is as absent as one that never was.
      if (!action || (ctx.principal.kind === 'agent' && action.agent_id !== ctx.principal.agentId)) {
        throw hubError('ACTION_NOT_FOUND', args.id);
      }
      const { id, status, result, reason, error } = action;
      return { id, action: action.action, status, result, reason, error };
    },
  }),
];
