// The network host inventory: the owner keeps it, agents may read it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import {
  CreateNetworkHost,
  NetworkHost,
  NetworkHostList,
  NetworkHostListQuery,
  UpdateNetworkHost,
} from './schema.ts';
import {
  deleteNetworkHost,
  findNetworkHost,
  insertNetworkHost,
  pageNetworkHosts,
  updateNetworkHost,
} from './store.ts';

/** The whole inventory, for other domains (the cluster card merges it into its nodes and guests). */
export { listNetworkHosts as networkHostInventory, type NetworkHostRow } from './store.ts';

const tags = ['network-hosts'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(NetworkHost);

  app.get(
    '/network-hosts',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'List network hosts',
        querystring: NetworkHostListQuery,
        response: { 200: NetworkHostList, ...errors(400, 401) },
      },
    },
    async (request) => {
      const { role, limit, offset } = request.query;
      return { ...(await pageNetworkHosts(app.sql, { role, limit, offset })), limit, offset };
    },
  );

  app.get(
    '/network-hosts/:id',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Get a network host',
        params: IdParams,
        response: { 200: Type.Ref('NetworkHost'), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const host = await findNetworkHost(app.sql, request.params.id);
      if (!host) throw app.httpErrors.notFound('network host not found');
      return host;
    },
  );

  app.post(
    '/network-hosts',
    {
      onRequest: app.owner,
      schema: {
        tags,
        summary: 'Add a network host',
        body: CreateNetworkHost,
        response: { 201: Type.Ref('NetworkHost'), ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await insertNetworkHost(app.sql, request.body)),
  );

  app.patch(
    '/network-hosts/:id',
    {
      onRequest: app.owner,
      schema: {
        tags,
        summary: 'Change a network host',
        params: IdParams,
        body: UpdateNetworkHost,
        response: { 200: Type.Ref('NetworkHost'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const host = await updateNetworkHost(app.sql, request.params.id, request.body);
      if (!host) throw app.httpErrors.notFound('network host not found');
      return host;
    },
  );

  app.delete(
    '/network-hosts/:id',
    {
      onRequest: app.owner,
      schema: {
        tags,
        summary: 'Remove a network host',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await deleteNetworkHost(app.sql, request.params.id)))
        throw app.httpErrors.notFound('network host not found');
      return reply.status(204).send(null);
    },
  );
};

export default plugin;
