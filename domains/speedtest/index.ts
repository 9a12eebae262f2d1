// Speed tests. Routes:
//   POST /api/speedtest/run             owner: start a measurement (one at a time: a pending run answers instead)
//   GET  /api/speedtest/latest          the newest result
//   GET  /api/speedtest/history         results newest first, with a summary (?since=&until=&limit=)
//   GET  /api/speedtest/history.csv     the same as CSV
//   GET  /api/speedtest/settings        owner: schedule and thresholds
//   PUT  /api/speedtest/settings        owner: change them (the schedule applies from the next minute on)
// The dashboard's speed-test card gets the history of the last 7 days, as GET /api/speedtest/history answers it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { cronProblem } from '../../lib/cron.ts';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
import { readSettingOrStoreDefault, writeSetting } from '../settings/registry.ts';
import { historyCsv } from './csv.ts';
import { speedtestCron, speedtestTasks } from './jobs.ts';
import { startRun } from './run.ts';
import {
  History,
  HistoryQuery,
  SpeedtestResult,
  SpeedtestRunAccepted,
  SpeedtestSettings,
  speedtestRunTask,
} from './schema.ts';
import { speedtestSetting } from './setting.ts';
import { latestResult, listResults, summarise } from './store.ts';

const tags = ['speed tests'];
/** The speed-test card's range, in days, unless its config names another. */
const cardDays = 7;
const cardResults = 100;

function rangeOf(query: HistoryQuery) {
  return {
    since: query.since ? new Date(query.since) : undefined,
    until: query.until ? new Date(query.until) : undefined,
  };
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(SpeedtestResult);

  async function history(query: HistoryQuery) {
    const range = rangeOf(query);
    const [items, summary] = await Promise.all([
      listResults(app.sql, range, query),
      summarise(app.sql, range),
    ]);
    return { items, summary };
  }

  app.cards.addSource({
    type: 'speedtest',
    intervalMs: 60_000,
    read: () =>
      history({
        since: new Date(Date.now() - cardDays * 86_400_000).toISOString(),
        limit: cardResults,
        offset: 0,
      }),
  });

  await app.register(
    agentAccess(async (agents) => {
      agents.get(
        '/speedtest/latest',
        {
          schema: {
            tags,
            summary: 'The newest speed-test result',
            response: { 200: Type.Ref('SpeedtestResult'), ...errors(401, 404) },
          },
        },
        async () => {
          const latest = await latestResult(app.sql);
          if (!latest) throw hubError('SPEEDTEST_NO_RESULT');
          return latest;
        },
      );

      agents.get(
        '/speedtest/history',
        {
          schema: {
            tags,
            summary: 'Speed-test results, newest first, with a summary of the range',
            description:
              'The summary counts runs, failures and results below a threshold, with min, median and max.',
            querystring: HistoryQuery,
            response: { 200: History, ...errors(400, 401) },
          },
        },
        async (request) => history(request.query),
      );

      agents.get(
        '/speedtest/history.csv',
        {
          schema: {
            tags,
            summary: 'Speed-test results as CSV',
            querystring: HistoryQuery,
            produces: ['text/csv'],
            response: {
              200: Type.String({ description: 'text/csv, one row a result' }),
              ...errors(400, 401),
            },
          },
        },
        async (request, reply) => {
          const items = await listResults(app.sql, rangeOf(request.query), request.query);
          return reply
            .type('text/csv; charset=utf-8')
            .header('content-disposition', 'attachment; filename="speedtest-history.csv"')
            .send(historyCsv(items));
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.post(
        '/speedtest/run',
        {
          schema: {
            tags,
            summary: 'Run a speed test now',
            description:
              'Answers 202 with the job. While a run is queued or in progress, answers that run’s job with ' +
              'already_running: true instead of starting another.',
            response: { 202: SpeedtestRunAccepted, ...errors(401, 403) },
          },
        },
        async (_request, reply) => reply.status(202).send(await startRun(app.sql)),
      );

      owner.get(
        '/speedtest/settings',
        {
          schema: {
            tags,
            summary: 'The schedule and the thresholds',
            response: { 200: SpeedtestSettings, ...errors(401, 403) },
          },
        },
        async () => readSettingOrStoreDefault(app.sql, speedtestSetting),
      );

      owner.put(
        '/speedtest/settings',
        {
          schema: {
            tags,
            summary: 'Change the schedule and the thresholds',
            description:
              'The schedule is a 5-field cron expression in the hub’s local time; it applies at once.',
            body: SpeedtestSettings,
            response: { 200: SpeedtestSettings, ...errors(400, 401, 403) },
          },
        },
        async (request) => {
          const problem = cronProblem(request.body.schedule);
          if (problem) throw hubError('INVALID_SCHEDULE', `schedule: ${problem}`);
          const row = await writeSetting(app.sql, speedtestSetting, request.body);
          return row.value as SpeedtestSettings;
        },
      );
    }),
  );
};

export default {
  name: 'speedtest',
  routes: plugin,
  tasks: speedtestTasks,
  cron: speedtestCron,
  settings: [speedtestSetting],
  actions: [{ task: speedtestRunTask, defaults: { trigger: 'manual' } }],
} satisfies HubModule;
