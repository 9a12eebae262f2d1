// The actions domain's tool: an agent asks the owner to run one of the modules' runnable actions.
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { type Tool, tool } from '../mcp/tool.ts';
import { runAction } from './run.ts';
import { RunAction } from './schema.ts';

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
];
