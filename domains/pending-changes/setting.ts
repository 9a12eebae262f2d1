// The `pending_quota` setting: how much one agent may have waiting for the owner at a time, so a suggest-tier agent
// can neither bury the Approvals screen nor fill the disk with proposed uploads.
import { Type } from 'typebox';
import { defineSetting } from '../../lib/settings.ts';

export const PendingQuota = Type.Object(
  {
    max_changes: Type.Integer({
      minimum: 1,
      maximum: 100_000,
      description: 'undecided (pending or applying) changes one agent may have',
    }),
    max_bytes: Type.Integer({
      minimum: 1024,
      maximum: 1024 ** 4,
      description: 'bytes those changes may hold, payloads and uploaded files together',
    }),
  },
  { additionalProperties: false },
);

export const pendingQuotaSetting = defineSetting({
  key: 'pending_quota',
  schema: PendingQuota,
  defaultValue: { max_changes: 100, max_bytes: 256 * 1024 * 1024 },
  description: "Per-agent quota of changes waiting for the owner's approval: how many, and how many bytes",
});
