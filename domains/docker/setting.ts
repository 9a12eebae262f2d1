// The `docker_sync` setting: when the hub reads the Docker daemon's containers for app candidates (read by the cron
// registry every minute, so a change applies at once). Nothing runs while Docker is not configured.

import { cronProblem } from '../../lib/cron.ts';
import { hubError } from '../../lib/errors.ts';
import { defineSetting } from '../../lib/settings.ts';
import { DockerSyncSettings } from './schema.ts';

export const dockerSyncSetting = defineSetting({
  key: 'docker_sync',
  schema: DockerSyncSettings,
  defaultValue: { enabled: true, schedule: '*/5 * * * *' },
  description: 'Docker discovery: the schedule (5-field cron) of the docker.sync task, and whether it runs',
  validate: async (_sql, value) => {
    const problem = cronProblem(value.schedule);
    if (problem) throw hubError('INVALID_SCHEDULE', `schedule: ${problem}`);
  },
});
