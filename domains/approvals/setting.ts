// Approve from the phone: how long an approval link works, and the hub's address as the phone reaches it.
import { Type } from 'typebox';
import { defineSetting } from '../../lib/settings.ts';

export const approvalTokenHoursSetting = defineSetting({
  key: 'approvals.token_hours',
  schema: Type.Integer({ minimum: 1, maximum: 720 }),
  defaultValue: 24,
  description: 'Hours an Approve or Reject link of an approval.waiting alert works (each works once)',
});

export const approvalBaseUrlSetting = defineSetting({
  key: 'approvals.base_url',
  schema: Type.Union([Type.String({ format: 'web-url', maxLength: 500 }), Type.Null()]),
  defaultValue: null,
  description:
    'The hub’s address as the phone reaches it (https://hub.example.net), for the Approve and Reject buttons and ' +
    'the link of approval.waiting alerts; HUB_URL when unset. Without either, the alert carries no buttons',
});
