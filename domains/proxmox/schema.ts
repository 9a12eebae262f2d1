// The storage check's task.
import { Type } from 'typebox';
import { defineTask } from '../../worker/contract.ts';

export const storageCheckTask = defineTask({
  name: 'storage.check',
  payload: Type.Object({}, { additionalProperties: false }),
  description:
    'Reads the Proxmox storage roll-up and alerts when it changes (storage.watch, storage.attention, storage.healthy)',
  maxAttempts: 1,
});
