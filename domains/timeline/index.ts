// The ops timeline: one record of what happened across the hub (service states, devices, backups, approvals, edits,
// jobs ...), written by each domain through record.ts as it happens, read here newest first.
//
// Routes it registers (access in brackets):
//   GET /api/timeline         [agent or owner]  events, newest first, filtered and cursor-paged
//   GET /api/timeline/around  [agent or owner]  everything within ± minutes of a moment
// A space-scoped agent sees its space's events and the global ones (infrastructure events have no space).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { jobFailedEvent, timelineCron, timelineTasks } from './jobs.ts';
import { readAround, readTimeline } from './read.ts';
import {
  AroundAnswer,
  AroundQuery,
  maxAroundMinutes,
  TimelineEvent,
  TimelinePage,
  TimelineQuery,
} from './schema.ts';
import { timelineRetentionSetting } from './setting.ts';
import { timelineTools } from './tools.ts';

const tags = ['timeline'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(TimelineEvent);
  app.get(
    '/timeline',
    {
      schema: {
        tags,
        summary: 'What happened, newest first',
        description:
          'Events recorded by every domain as things happen. since (inclusive) and until (exclusive) bound the time; ' +
          'kinds is comma-separated (`device.*` takes an area); subject is `type:id`; q searches titles and kinds. ' +
          'Pass next_cursor back as cursor for the next, older page. A space-scoped agent sees its space’s events ' +
          'and the global ones.',
        querystring: TimelineQuery,
        response: { 200: TimelinePage, ...errors(400, 401, 403) },
      },
    },
    (request) => readTimeline(app.sql, request.principal, request.query),
  );
  app.get(
    '/timeline/around',
    {
      schema: {
        tags,
        summary: 'What changed around a moment',
        description: `Every event within ± minutes (default 30, at most ${maxAroundMinutes}) of at, oldest first.`,
        querystring: AroundQuery,
        response: { 200: AroundAnswer, ...errors(400, 401, 403) },
      },
    },
    (request) => readAround(app.sql, request.principal, request.query),
  );
};

export default {
  name: 'timeline',
  routes: agentAccess(plugin),
  tasks: timelineTasks,
  cron: timelineCron,
  settings: [timelineRetentionSetting],
  tools: timelineTools,
  onJobFailed: jobFailedEvent,
} satisfies HubModule;
