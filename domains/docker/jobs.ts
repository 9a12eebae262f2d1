// docker.sync on the schedule of the `docker_sync` setting (read by the cron registry every minute), only while
// Docker is configured; the owner runs it on demand through /api/actions/run.
import { cronItem, type DomainCron, type DomainTask, runs } from '../../worker/contract.ts';
import { readSettingOrStoreDefault } from '../settings/registry.ts';
import { dockerSyncTask } from './schema.ts';
import { dockerSyncSetting } from './setting.ts';
import { dockerConfigured, syncDocker } from './sync.ts';

export const dockerTasks: DomainTask[] = [
  runs(dockerSyncTask, (deps) => async (_payload, helpers) => {
    const report = await syncDocker(deps);
    if (!report) {
      helpers.logger.info(
        'Docker is not configured (DOCKER_HOST or Settings → Integrations): nothing to read',
      );
      return;
    }
    helpers.logger.info(
      `docker sync: ${report.containers} containers, ${report.candidates} app candidates` +
        (report.forgotten ? `, ${report.forgotten} gone` : ''),
    );
  }),
];

export const dockerCron: DomainCron = () => [
  cronItem({
    id: 'docker-sync',
    task: dockerSyncTask,
    schedule: async (deps) => {
      const settings = await readSettingOrStoreDefault(deps.sql, dockerSyncSetting);
      return settings.enabled && (await dockerConfigured(deps)) ? settings.schedule : null;
    },
    payload: { trigger: 'schedule' },
  }),
];
