// Backups of the hub itself: the runs, and the archives in BACKUP_DIR for the owner to download. Runs are started by
// the schedule (the `hub_backup` setting), by the owner (the action hub.backup through /api/actions/run), or by
// `npm run backup`; `npm run restore` restores an archive (scripts/restore.ts).
//
// Routes it registers (access in brackets):
//   GET    /api/system/backups        [owner]  the runs, newest first, with the schedule and BACKUP_DIR
//   GET    /api/system/backups/:name  [owner]  download one archive
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { readSettingOrStoreDefault } from '../settings/registry.ts';
import { hubBackupCron, hubBackupTasks } from './jobs.ts';
import { isArchiveName } from './retention.ts';
import { ArchiveName, HubBackupList, HubBackupRun, hubBackupTask } from './schema.ts';
import { hubBackupSetting } from './setting.ts';
import { lastSuccessfulRun, recentRuns } from './store.ts';

const tags = ['system'];
const listed = 100;

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(HubBackupRun);
  const { config } = app;

  await app.register(
    ownerOnly(async (owner) => {
      owner.get(
        '/system/backups',
        {
          schema: {
            tags,
            summary: "The hub's own backup runs",
            description:
              'Newest first (the last 100): time, size, duration, state; `available` says whether the archive is still ' +
              'in BACKUP_DIR (retention removes old ones). Run one with POST /api/actions/run {"action":"hub.backup"}.',
            response: { 200: HubBackupList, ...errors(401, 403) },
          },
        },
        async () => {
          const [runs, lastSuccess, settings, present] = await Promise.all([
            recentRuns(app.sql, listed),
            lastSuccessfulRun(app.sql),
            readSettingOrStoreDefault(app.sql, hubBackupSetting),
            readdir(config.backup.dir).catch(() => [] as string[]),
          ]);
          const files = new Set(present.filter(isArchiveName));
          return {
            items: runs.map((run) => ({
              ...run,
              available: run.file_name !== null && files.has(run.file_name),
            })),
            last_success_at: lastSuccess,
            schedule: settings.enabled ? settings.schedule : null,
            directory: config.backup.dir,
            encrypted: config.backup.passphrase !== null,
          };
        },
      );

      owner.get(
        '/system/backups/:name',
        {
          schema: {
            tags,
            summary: 'Download a backup archive',
            params: ArchiveName,
            response: {
              200: Type.Unsafe({ type: 'string', format: 'binary', description: 'The archive' }),
              ...errors(400, 401, 403, 404),
            },
          },
        },
        async (request, reply) => {
          // The schema admits archive names only: no separator, no dot-dot, nothing outside BACKUP_DIR.
          const { name } = request.params;
          const file = path.join(config.backup.dir, path.basename(name));
          const info = await stat(file).catch(() => null);
          if (!info?.isFile()) throw hubError('BACKUP_ARCHIVE_NOT_FOUND', name);
          return reply
            .type('application/octet-stream')
            .header('content-length', info.size)
            .header('content-disposition', `attachment; filename="${name}"`)
            .header('cache-control', 'no-store')
            .send(createReadStream(file));
        },
      );
    }),
  );
};

export default {
  name: 'hub-backup',
  routes,
  tasks: hubBackupTasks,
  cron: hubBackupCron,
  settings: [hubBackupSetting],
  actions: [{ task: hubBackupTask, defaults: { trigger: 'manual' } }],
} satisfies HubModule;
