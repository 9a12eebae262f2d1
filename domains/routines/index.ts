// Routines: an agent's prompt run on a schedule (5-field cron, checked by lib/cron.ts) as a headless assistant turn
// with the timeline since its last run as its view; its writes follow the agent's tier. Owner only.
//
// Routes it registers (access in brackets):
//   GET    /api/routines              [owner only]
//   POST   /api/routines              [owner only]
//   PATCH  /api/routines/:id          [owner only]
//   DELETE /api/routines/:id          [owner only]
//   POST   /api/routines/:id/run      [owner only]  a run now, enqueued
//   GET    /api/routines/:id/runs     [owner only]  its runs, newest first
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cronProblem } from '../../lib/cron.ts';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { cronItem, type DomainCron, type DomainTask, runs } from '../../worker/contract.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { findAgent } from '../agents/turn-token.ts';
import { assertSpaceReadable } from '../entities/write.ts';
import { enqueueDueRoutines, runRoutine } from './run.ts';
import {
  CreateRoutine,
  PageQuery,
  Routine,
  RoutineList,
  RoutineRun,
  RoutineRunList,
  RunQueued,
  routineRunTask,
  routinesDueTask,
  UpdateRoutine,
} from './schema.ts';
import { deleteRoutine, findRoutine, insertRoutine, listRoutines, listRuns, updateRoutine } from './store.ts';

const tags = ['routines'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Routine);
  app.addSchema(RoutineRun);

  /** The schedule parses, the agent exists and the space does: checked before anything is written. */
  async function check(
    request: Parameters<typeof assertSpaceReadable>[0],
    body: Partial<CreateRoutine>,
  ): Promise<void> {
    if (body.schedule !== undefined) {
      const problem = cronProblem(body.schedule);
      if (problem) throw hubError('INVALID_SCHEDULE', `schedule: ${problem}`);
    }
    if (body.agent_id !== undefined && !(await findAgent(app.sql, body.agent_id)))
      throw hubError('AGENT_NOT_FOUND', body.agent_id);
    if (body.space_id) await assertSpaceReadable(request, body.space_id);
  }

  async function existing(id: string) {
    const routine = await findRoutine(app.sql, id);
    if (!routine) throw hubError('ROUTINE_NOT_FOUND');
    return routine;
  }

  app.get(
    '/routines',
    {
      schema: {
        tags,
        summary: 'The routines',
        querystring: PageQuery,
        response: { 200: RoutineList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      return { ...(await listRoutines(app.sql, { limit, offset })), limit, offset };
    },
  );

  app.post(
    '/routines',
    {
      schema: {
        tags,
        summary: 'Adds a routine',
        body: CreateRoutine,
        response: { 201: Routine, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await check(request, request.body);
      reply.code(201);
      return insertRoutine(app.sql, request.body);
    },
  );

  app.patch(
    '/routines/:id',
    {
      schema: {
        tags,
        summary: 'Changes a routine',
        params: IdParams,
        body: UpdateRoutine,
        response: { 200: Routine, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await check(request, request.body);
      const routine = await updateRoutine(app.sql, request.params.id, request.body);
      if (!routine) throw hubError('ROUTINE_NOT_FOUND');
      return routine;
    },
  );

  app.delete(
    '/routines/:id',
    {
      schema: {
        tags,
        summary: 'Deletes a routine and its runs',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await deleteRoutine(app.sql, request.params.id))) throw hubError('ROUTINE_NOT_FOUND');
      reply.code(204);
      return null;
    },
  );

  app.post(
    '/routines/:id/run',
    {
      schema: {
        tags,
        summary: 'Runs a routine now (enabled or not): a job, its run recorded in the routine’s runs',
        params: IdParams,
        response: { 202: RunQueued, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const routine = await existing(request.params.id);
      const job = await enqueue(app.sql, routineRunTask, { routine_id: routine.id, trigger: 'manual' });
      reply.code(202);
      return { job_id: job.id, status: 'queued' as const };
    },
  );

  app.get(
    '/routines/:id/runs',
    {
      schema: {
        tags,
        summary: 'A routine’s runs, newest first, with their output, usage, state and error',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: RoutineRunList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await existing(request.params.id);
      const { limit, offset } = request.query;
      return { ...(await listRuns(app.sql, request.params.id, { limit, offset })), limit, offset };
    },
  );
};

const tasks: DomainTask[] = [
  runs(routinesDueTask, (deps) => async () => {
    await enqueueDueRoutines(deps, new Date());
  }),
  runs(routineRunTask, (deps) => async (payload) => {
    await runRoutine(deps, payload.routine_id, payload.trigger);
  }),
];

const cron: DomainCron = () => [
  cronItem({ id: 'routines.due', task: routinesDueTask, schedule: '* * * * *', payload: {} }),
];

export default { name: 'routines', routes: ownerOnly(plugin), tasks, cron } satisfies HubModule;
