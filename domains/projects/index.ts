// Projects: their tasks and linked refs, and the placeholder research trigger.
//
// Routes it registers (access in brackets; get, create, update and delete of an entity come from
// entityRoutes in domains/entities/routes.ts):
//   GET    /api/projects                  [agent or owner]
//   GET    /api/projects/:id              [agent or owner]
//   POST   /api/projects                  [agent or owner]
//   PATCH  /api/projects/:id              [agent or owner]
//   DELETE /api/projects/:id              [agent or owner]
//   POST   /api/projects/:id/research     [agent or owner]
//   GET    /api/projects/:id/links        [agent or owner]
//   GET    /api/projects/:id/refs         [agent or owner]
//   POST   /api/projects/:id/refs         [agent or owner]
//   DELETE /api/projects/:id/refs/:refId  [agent or owner]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent, PageQuery } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, isScopedAgent } from '../../plugins/auth.ts';
import { entityRoutes, readableBy } from '../entities/routes.ts';
import { assertDirectWriter, performWrite, readScope } from '../entities/write.ts';
import { PendingReceipt } from '../pending-changes/schema.ts';
import { Ref } from '../refs/schema.ts';
import { Task } from '../tasks/schema.ts';
import { projectHandler } from './entity.ts';
import {
  CreateProject,
  LinkRef,
  Project,
  ProjectLinks,
  ProjectList,
  ProjectListQuery,
  ProjectRefLink,
  ProjectRefList,
  ProjectRefParams,
  UpdateProject,
} from './schema.ts';
import { findProject, linkRef, listProjectRefs, listProjects, projectLinks, unlinkRef } from './store.ts';
import { projectTools } from './tools.ts';

const tags = ['projects'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Project);
  app.addSchema(Task);
  app.addSchema(Ref);

  const readable = readableBy('project', (id) => findProject(app.sql, id));

  app.get(
    '/projects',
    {
      schema: {
        tags,
        summary: 'List projects by name, filtered by space or status',
        querystring: ProjectListQuery,
        response: { 200: ProjectList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { space_id, status, limit, offset } = request.query;
      const spaceId = readScope(request, space_id);
      return { ...(await listProjects(app.sql, { spaceId, status, limit, offset })), limit, offset };
    },
  );

  entityRoutes(app, {
    entity_type: 'project',
    path: '/projects',
    tags,
    entity: Type.Ref('Project'),
    read: readable,
    body: { create: CreateProject, update: UpdateProject },
    summary: {
      get: 'Get a project',
      create: 'Create a project',
      update: 'Change a project',
      delete: 'Delete a project with its tasks and ref links',
    },
  });

  app.post(
    '/projects/:id/research',
    {
      schema: {
        tags,
        summary: 'Start research on a project (placeholder: marks it queued and stamps the start)',
        params: IdParams,
        response: { 200: Type.Ref('Project'), 202: PendingReceipt, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, {
        entity_type: 'project',
        action: 'update',
        entity_id: request.params.id,
        payload: {
          research_status: 'queued',
          research_started_at: new Date().toISOString(),
          research_finished_at: null,
        },
      }),
  );

  app.get(
    '/projects/:id/links',
    {
      schema: {
        tags,
        summary: "A project's tasks and linked refs",
        params: IdParams,
        response: { 200: ProjectLinks, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const project = await readable(request, request.params.id);
      return { project_id: project.id, ...(await projectLinks(app.sql, project.id)) };
    },
  );

  app.get(
    '/projects/:id/refs',
    {
      schema: {
        tags,
        summary: 'Refs linked to a project, most recently linked first',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: ProjectRefList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const project = await readable(request, request.params.id);
      const { limit, offset } = request.query;
      return { ...(await listProjectRefs(app.sql, project.id, { limit, offset })), limit, offset };
    },
  );

  app.post(
    '/projects/:id/refs',
    {
      schema: {
        tags,
        summary: 'Link a ref of the same space to a project',
        params: IdParams,
        body: LinkRef,
        response: { 201: ProjectRefLink, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const project = await readable(request, request.params.id);
      assertDirectWriter(request, project.space_id);
      const link = await linkRef(app.sql, project.id, request.body.ref_id);
      if (link === 'missing') throw hubError('REF_NOT_FOUND');
      // A scoped agent sees one space: a ref elsewhere is, for it, no ref at all.
      if (link === 'other-space')
        throw isScopedAgent(request.principal)
          ? hubError('REF_NOT_FOUND')
          : hubError('SPACE_MISMATCH', 'the ref is in another space than the project');
      return reply.status(201).send(link);
    },
  );

  app.delete(
    '/projects/:id/refs/:refId',
    {
      schema: {
        tags,
        summary: 'Unlink a ref from a project (the ref stays)',
        params: ProjectRefParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const project = await readable(request, request.params.id);
      assertDirectWriter(request, project.space_id);
      if (!(await unlinkRef(app.sql, project.id, request.params.refId))) throw hubError('REF_NOT_LINKED');
      return reply.status(204).send(null);
    },
  );
};

export default {
  name: 'projects',
  routes: agentAccess(plugin),
  entities: { project: projectHandler },
  tools: projectTools,
} satisfies HubModule;
