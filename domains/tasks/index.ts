// Tasks: work items of a project, in the project's space.
//
// Routes it registers (access in brackets; get, create, update and delete of an entity come from
// entityRoutes in domains/entities/routes.ts):
//   GET    /api/tasks      [agent or owner]
//   GET    /api/tasks/:id  [agent or owner]
//   POST   /api/tasks      [agent or owner]
//   PATCH  /api/tasks/:id  [agent or owner]
//   DELETE /api/tasks/:id  [agent or owner]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { entityRoutes, readableBy } from '../entities/routes.ts';
import { readScope } from '../entities/write.ts';
import { taskHandler } from './entity.ts';
import { CreateTask, Task, TaskList, TaskListQuery, UpdateTask } from './schema.ts';
import { findTask, listTasks } from './store.ts';
import { taskTools } from './tools.ts';

const tags = ['tasks'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Task);

  app.get(
    '/tasks',
    {
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

  entityRoutes(app, {
    entity_type: 'task',
    path: '/tasks',
    tags,
    entity: Type.Ref('Task'),
    read: readableBy('task', (id) => findTask(app.sql, id)),
    body: { create: CreateTask, update: UpdateTask },
    summary: {
      get: 'Get a task',
      create: "Create a task in a project (it takes the project's space)",
      update: 'Change a task (or move it to another project of the same space)',
      delete: 'Delete a task',
    },
  });
};

export default {
  name: 'tasks',
  routes: agentAccess(plugin),
  entities: { task: taskHandler },
  tools: taskTools,
} satisfies HubModule;
