// Tasks: work items of a project, in the project's space.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import { assertCanRead, performWrite, readScope } from '../entities/write.ts';
import { PendingReceipt } from '../pending-changes/schema.ts';
import { CreateTask, Task, TaskList, TaskListQuery, UpdateTask } from './schema.ts';
import { findTask, listTasks } from './store.ts';

const tags = ['tasks'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Task);

  app.get(
    '/tasks',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'List tasks (due first), filtered by space, project or status',
        querystring: TaskListQuery,
        response: { 200: TaskList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { space_id, project_id, status, limit, offset } = request.query;
      const spaceId = readScope(request, space_id);
      const page = await listTasks(app.sql, { spaceId, projectId: project_id, status, limit, offset });
      return { ...page, limit, offset };
    },
  );

  app.get(
    '/tasks/:id',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Get a task',
        params: IdParams,
        response: { 200: Type.Ref('Task'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const task = await findTask(app.sql, request.params.id);
      if (!task) throw app.httpErrors.notFound('task not found');
      assertCanRead(request, task.space_id);
      return task;
    },
  );

  app.post(
    '/tasks',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: "Create a task in a project (it takes the project's space)",
        body: CreateTask,
        response: { 201: Type.Ref('Task'), 202: PendingReceipt, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, { entity_type: 'task', action: 'create', payload: request.body }),
  );

  app.patch(
    '/tasks/:id',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Change a task (or move it to another project of the same space)',
        params: IdParams,
        body: UpdateTask,
        response: { 200: Type.Ref('Task'), 202: PendingReceipt, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, {
        entity_type: 'task',
        action: 'update',
        entity_id: request.params.id,
        payload: request.body,
      }),
  );

  app.delete(
    '/tasks/:id',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Delete a task',
        params: IdParams,
        response: { 204: NoContent, 202: PendingReceipt, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, { entity_type: 'task', action: 'delete', entity_id: request.params.id }),
  );
};

export default plugin;
