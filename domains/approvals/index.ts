// Approve from the phone. Public: the token in the path is the credential (single-use, expiring, bound to one
// pending change or action and one decision). Its 32 random bytes cannot be guessed, so a wrong one is not counted
// against the caller's address as a wrong owner token is: counting would only let a stranger lock the owner out.
//   POST /api/approvals/:token   approves or rejects what the token was minted for, as the owner would (audited as
//                                owner:phone)
// tokens.ts mints the tokens when approval.waiting is raised (pending-changes and actions call it).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HubError, hubError } from '../../lib/errors.ts';
import { errors, Uuid } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { type Principal, publicAccess } from '../../plugins/auth.ts';
import { approveAction, rejectAction } from '../actions/run.ts';
import { writeEnv } from '../entities/write.ts';
import { approveChange, rejectChange } from '../pending-changes/governance.ts';
import { approvalBaseUrlSetting, approvalTokenHoursSetting } from './setting.ts';
import { redeemApprovalToken } from './tokens.ts';

const Decided = Type.Object({
  decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
  pending_change_id: Type.Union([Uuid, Type.Null()]),
  pending_action_id: Type.Union([Uuid, Type.Null()]),
  status: Type.String({ description: 'what the change or action is now: applied, approved, rejected' }),
});

const phone: Principal = { kind: 'owner', via: 'phone' };

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(
    publicAccess(async (open) => {
      open.post(
        '/approvals/:token',
        {
          schema: {
            tags: ['pending-changes'],
            summary: 'Approve or reject a pending change or action from an approval.waiting alert',
            description:
              'The Approve and Reject buttons of an approval.waiting alert call this. The token works once and ' +
              'expires (approvals.token_hours, 24 by default); used, expired or unknown tokens are 401 ' +
              'APPROVAL_TOKEN_INVALID. The decision goes through the owner’s approve or reject and is audited as ' +
              'owner:phone. A change that cannot be applied answers as its approve does (409 ...).',
            params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
            response: { 200: Decided, ...errors(400, 401, 404, 409, 422, 429) },
          },
        },
        async (request) => {
          const redeemed = await redeemApprovalToken(app.sql, request.params.token);
          if (!redeemed) throw hubError('APPROVAL_TOKEN_INVALID');
          const { decision, pending_change_id, pending_action_id } = redeemed;
          let status: string;
          if (pending_change_id) {
            if (decision === 'approve') {
              const approval = await approveChange(
                app.sql,
                pending_change_id,
                phone,
                request.log,
                writeEnv(app),
              );
              if (!approval.ok) throw new HubError(approval.code, approval.message, approval.extra);
              status = approval.change.status;
            } else {
              status = (await rejectChange(app.sql, pending_change_id, phone, null, app.config)).status;
            }
          } else {
            const id = pending_action_id as string;
            const action =
              decision === 'approve'
                ? await approveAction(app.sql, app.hub.actions, id, phone, app.config.server)
                : await rejectAction(app.sql, id, phone, null);
            status = action.status;
          }
          return { decision, pending_change_id, pending_action_id, status };
        },
      );
    }),
  );
};

export default {
  name: 'approvals',
  routes: plugin,
  settings: [approvalTokenHoursSetting, approvalBaseUrlSetting],
} satisfies HubModule;
