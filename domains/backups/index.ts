// The backups card: a backup script reports each run; the card shows the last one and whether backups are stale,
// and beside them the hub's own backups (domains/hub-backup), judged by their schedule with the same grace.
//   POST /api/backups   record one run (owner; a vzdump hook calls it with curl at job-end)
//   GET  /api/backups   last run, per-guest sizes, target free space, schedule, the last 30 runs, staleness
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { cronProblem } from '../../lib/cron.ts';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
import { dashboardSetting } from '../dashboard/setting.ts';
import { hubBackupStatus } from '../hub-backup/status.ts';
import { readSetting } from '../settings/registry.ts';
import { BackupRun, BackupSummary, CreateBackupRun } from './schema.ts';
import { defaultStalenessRules, staleness } from './staleness.ts';
import { currentSchedule, insertBackupRun, lastSuccessAt, recentBackupRuns } from './store.ts';
import { recordBackupRun } from './timeline.ts';

const tags = ['dashboard'];
const recentRuns = 30;

export interface BackupsOptions {
  /** The clock staleness is judged by (tests pass their own). */
  now: () => Date;
}

const plugin: FastifyPluginAsyncTypebox<BackupsOptions> = async (app, options) => {
  app.addSchema(BackupRun);

  async function summary() {
    const [runs, lastSuccess, schedule, overrides] = await Promise.all([
      recentBackupRuns(app.sql, recentRuns),
      lastSuccessAt(app.sql),
      currentSchedule(app.sql),
      readSetting(app.sql, dashboardSetting),
    ]);
    const now = options.now();
    const rules = {
      graceHours: overrides.backup_grace_hours ?? defaultStalenessRules.graceHours,
      unscheduledHours: overrides.backup_stale_hours ?? defaultStalenessRules.unscheduledHours,
    };
    const judged = staleness(lastSuccess, schedule, now, rules);
    const last = runs[0] ?? null;
    return {
      last_run: last,
      last_success_at: lastSuccess,
      guests: last?.guests ?? [],
      target: last?.target ?? null,
      schedule,
      stale: judged.stale,
      stale_reason: judged.reason,
      expected_since: judged.expectedSince,
      runs,
      hub: await hubBackupStatus(app.sql, now, rules),
    };
  }

  app.cards.addSource({ type: 'backups', intervalMs: 60_000, read: summary });

  await app.register(
    agentAccess(async (agents) => {
      agents.get(
        '/backups',
        {
          schema: {
            tags,
            summary: 'Backups card: the last run, the target and whether backups are stale',
            description:
              "stale is true when no successful run finished since the schedule's last expected run plus 6 hours " +
              '(backup_grace_hours in the dashboard setting), or within 48 hours without a schedule (backup_stale_hours). ' +
              "hub: the hub's own backups (the hub_backup setting's schedule, the same grace), their last five runs.",
            response: { 200: BackupSummary, ...errors(401) },
          },
        },
        summary,
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.post(
        '/backups',
        {
          schema: {
            tags,
            summary: 'Record a backup run',
            body: CreateBackupRun,
            response: { 201: Type.Ref('BackupRun'), ...errors(400, 401, 403) },
          },
        },
        async (request, reply) => {
          const run = request.body;
          if (Date.parse(run.finished_at) < Date.parse(run.started_at)) {
            throw hubError('BACKUP_INVALID', 'finished_at is before started_at');
          }
          if (run.target.free_bytes > run.target.total_bytes) {
            throw hubError('BACKUP_INVALID', 'target.free_bytes is more than target.total_bytes');
          }
          if (run.schedule !== undefined) {
            const problem = cronProblem(run.schedule);
            if (problem) throw hubError('BACKUP_INVALID', `schedule: ${problem}`);
          }
          const row = await app.sql.begin(async (tx) => {
            const inserted = await insertBackupRun(tx, run);
            await recordBackupRun(tx, inserted);
            return inserted;
          });
          app.cards.publish('backups', await summary());
          return reply.status(201).send(row);
        },
      );
    }),
  );
};

export default {
  name: 'backups',
  routes: plugin,
} satisfies HubModule;
