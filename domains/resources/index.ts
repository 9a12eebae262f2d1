// Resources: infrastructure entities of a space and what they depend on. Agents get the allow-listed columns
// only (never monitoring or metadata); dependency wiring is the owner's alone.
//
// Routes it registers (access in brackets; get, create, update and delete of an entity come from
// entityRoutes in domains/entities/routes.ts):
//   GET    /api/resources                                [agent or owner]
//   GET    /api/resources/:id                            [agent or owner]
//   POST   /api/resources                                [agent or owner]
//   PATCH  /api/resources/:id                            [agent or owner]
//   DELETE /api/resources/:id                            [agent or owner]
//   GET    /api/resources/:id/dependencies               [agent or owner]
//   POST   /api/resources/:id/dependencies               [owner only]
//   DELETE /api/resources/:id/dependencies/:dependsOnId  [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent, PageQuery } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
import { entityRoutes, readableBy } from '../entities/routes.ts';
import { readScope } from '../entities/write.ts';
import { resourceHandler } from './entity.ts';
import {
  AddDependency,
  CreateResource,
  Dependency,
  DependencyParams,
  Resource,
  ResourceList,
  ResourceListQuery,
  UpdateResource,
} from './schema.ts';
import { addDependency, findResource, listDependencies, listResources, removeDependency } from './store.ts';
import { resourceTools } from './tools.ts';
import { presentResource, viewOf } from './view.ts';

const tags = ['resources'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Resource);

  const readable = readableBy('resource', (id, request) =>
    findResource(app.sql, id, viewOf(request.principal)),
  );

  await app.register(
    agentAccess(async (agents) => {
      agents.get(
        '/resources',
        {
          schema: {
            tags,
            summary: 'List resources by name, filtered by space or kind',
            querystring: ResourceListQuery,
            response: { 200: ResourceList, ...errors(400, 401, 403) },
          },
        },
        async (request) => {
          const { space_id, kind, limit, offset } = request.query;
          const spaceId = readScope(request, space_id);
          const page = await listResources(
            app.sql,
            { spaceId, kind, limit, offset },
            viewOf(request.principal),
          );
          return { ...page, limit, offset };
        },
      );

      entityRoutes(agents, {
        entity_type: 'resource',
        path: '/resources',
        tags,
        entity: Type.Ref('Resource'),
        read: readable,
        body: { create: CreateResource, update: UpdateResource },
        summary: {
          get: 'Get a resource',
          create: 'Create a resource',
          update: 'Change a resource',
          delete: 'Delete a resource and its dependency edges',
        },
        present: (entity, principal) => presentResource(app.sql, entity, principal),
      });

      agents.get(
        '/resources/:id/dependencies',
        {
          schema: {
            tags,
            summary: 'The resources this one depends on',
            params: IdParams,
            querystring: PageQuery,
            response: { 200: ResourceList, ...errors(400, 401, 403, 404) },
          },
        },
        async (request) => {
          const resource = await readable(request, request.params.id);
          const { limit, offset } = request.query;
          const page = await listDependencies(
            app.sql,
            resource.id,
            { limit, offset },
            viewOf(request.principal),
          );
          return { ...page, limit, offset };
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.post(
        '/resources/:id/dependencies',
        {
          schema: {
            tags,
            summary: 'Add a dependency (owner only; refuses itself and cycles)',
            params: IdParams,
            body: AddDependency,
            response: { 201: Dependency, ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request, reply) => {
          const { id } = request.params;
          const result = await app.sql.begin((tx) => addDependency(tx, id, request.body.depends_on_id));
          if (result === 'missing') throw hubError('RESOURCE_NOT_FOUND');
          if (result === 'self') throw hubError('DEPENDENCY_SELF');
          if (result === 'exists') throw hubError('DEPENDENCY_EXISTS');
          if (result === 'cycle') throw hubError('DEPENDENCY_CYCLE');
          return reply.status(201).send(result);
        },
      );

      owner.delete(
        '/resources/:id/dependencies/:dependsOnId',
        {
          schema: {
            tags,
            summary: 'Remove a dependency (owner only)',
            params: DependencyParams,
            response: { 204: NoContent, ...errors(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          if (!(await removeDependency(app.sql, request.params.id, request.params.dependsOnId)))
            throw hubError('DEPENDENCY_NOT_FOUND');
          return reply.status(204).send(null);
        },
      );
    }),
  );
};

export default {
  name: 'resources',
  routes: plugin,
  entities: { resource: resourceHandler },
  tools: resourceTools,
} satisfies HubModule;
