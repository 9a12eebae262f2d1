// The host card's query and the threshold check's task.
import { Type } from 'typebox';
import { defineTask } from '../../worker/contract.ts';

export const HostQuery = Type.Object({
  mounts: Type.Optional(
    Type.String({ maxLength: 4096, description: 'Comma-separated subset of HOST_MOUNTS' }),
  ),
});

export const hostCheckTask = defineTask({
  name: 'host.check',
  payload: Type.Object({}, { additionalProperties: false }),
  description:
    "Compares the host's CPU, memory and disk use with the alerts setting's thresholds: host.threshold when one " +
    'stays over for host_minutes, host.normal when it is back under',
  maxAttempts: 1,
});
