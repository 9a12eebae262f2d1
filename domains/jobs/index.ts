// The owner's view of background jobs: list, inspect, retry a failed one, delete. Finished jobs stay listed for
// JOBS_RETENTION_HOURS (graphile-worker forgets completed jobs at once; job_records remembers them).
//
// Routes it registers (access in brackets):
//   GET    /api/jobs            [owner only]
//   GET    /api/jobs/:id        [owner only]
//   POST   /api/jobs/:id/retry  [owner only]
//   DELETE /api/jobs/:id        [owner only]
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { JobList, JobListQuery, JobParams, Job as JobSchema } from './schema.ts';
import { deleteJob, findJobRecord, type JobChange, listJobRecords, retryJob } from './store.ts';

const tags = ['jobs'];

/** Asks again while a just-finished job is still being released by the worker (a matter of milliseconds). */
async function settled(change: () => Promise<JobChange | undefined>): Promise<JobChange | undefined> {
  for (let attempt = 0; ; attempt++) {
    const result = await change();
    if (!result || result.ok || !result.settling || attempt >= 40) return result;
    await sleep(25);
  }
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(JobSchema);
  const retention = app.config.jobs.retentionHours;

  app.get(
    '/jobs',
    {
      schema: {
        tags,
        summary: 'List background jobs',
        description:
          'Newest first; filter by task and state. Finished jobs are kept for JOBS_RETENTION_HOURS.',
        querystring: JobListQuery,
        response: { 200: JobList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { items, total } = await listJobRecords(app.sql, request.query, retention);
      return { items, total, limit: request.query.limit, offset: request.query.offset };
    },
  );

  app.get(
    '/jobs/:id',
    {
      schema: {
        tags,
        summary: 'Get a job, with its payload and last error',
        params: JobParams,
        response: { 200: Type.Ref('Job'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const job = await findJobRecord(app.sql, request.params.id, retention);
      if (!job) throw hubError('JOB_NOT_FOUND');
      return job;
    },
  );

  app.post(
    '/jobs/:id/retry',
    {
      schema: {
        tags,
        summary: 'Run a failed job again now',
        description:
          'Resets its attempts and schedules it for now. Also runs a job waiting for its next attempt at once. ' +
          'A running or completed job cannot be retried (409).',
        params: JobParams,
        response: { 202: Type.Ref('Job'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const result = await settled(() => retryJob(app.sql, request.params.id, retention));
      if (!result) throw hubError('JOB_NOT_FOUND');
      if (!result.ok) throw hubError(result.code, result.reason);
      return reply.status(202).send(result.job);
    },
  );

  app.delete(
    '/jobs/:id',
    {
      schema: {
        tags,
        summary: 'Delete a job that is not running',
        description: 'A queued or failed job leaves the queue; a finished one leaves the list.',
        params: JobParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const result = await settled(() => deleteJob(app.sql, request.params.id, retention));
      if (!result) throw hubError('JOB_NOT_FOUND');
      if (!result.ok) throw hubError(result.code, result.reason);
      return reply.status(204).send(null);
    },
  );
};

export default {
  name: 'jobs',
  routes: ownerOnly(plugin),
} satisfies HubModule;
