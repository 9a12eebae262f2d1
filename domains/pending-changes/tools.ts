// The pending changes domain's tool: an agent follows the changes it proposed.
import { hubError } from '../../lib/errors.ts';
import { closed, paged, type Tool, tool } from '../mcp/tool.ts';
import { MyPendingChangeQuery, PendingChangeList } from './schema.ts';
import { listPendingChanges } from './store.ts';

export const pendingChangeTools: Tool[] = [
  tool({
    name: 'list_my_pending_changes',
    title: 'My pending changes',
    description:
      'The changes you proposed, newest first, with their status and the error of a failed approval.',
    input: closed(MyPendingChangeQuery),
    output: PendingChangeList,
    readOnly: true,
    async run(args, ctx) {
      if (ctx.principal.kind !== 'agent') {
        throw hubError(
          'BAD_REQUEST',
          'only agents propose changes; the owner reviews them at /api/pending-changes',
        );
      }
      const { status, limit, offset } = args;
      return paged(
        args,
        listPendingChanges(ctx.sql, { agentId: ctx.principal.agentId, status, limit, offset }),
      );
    },
  }),
];
