// The network host inventory: the owner keeps it, agents may read it.
//
// Routes it registers (access in brackets):
//   GET    /api/network-hosts      [agent or owner]
//   GET    /api/network-hosts/:id  [agent or owner]
//   POST   /api/network-hosts      [owner only]
//   PATCH  /api/network-hosts/:id  [owner only]
//   DELETE /api/network-hosts/:id  [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
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
import { networkHostTools } from './tools.ts';

/** The whole inventory, for other domains (the cluster card merges it into its nodes and guests). */

const tags = ['network-hosts'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(NetworkHost);

  await app.register(
    agentAccess(async (agents) => {
      agents.get(
        '/network-hosts',
        {
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

      agents.get(
        '/network-hosts/:id',
        {
          schema: {
            tags,
            summary: 'Get a network host',
            params: IdParams,
            response: { 200: Type.Ref('NetworkHost'), ...errors(400, 401, 404) },
          },
        },
        async (request) => {
          const host = await findNetworkHost(app.sql, request.params.id);
          if (!host) throw hubError('NETWORK_HOST_NOT_FOUND');
          return host;
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.post(
        '/network-hosts',
        {
          schema: {
            tags,
            summary: 'Add a network host',
            body: CreateNetworkHost,
            response: { 201: Type.Ref('NetworkHost'), ...errors(400, 401, 403, 409) },
          },
        },
        async (request, reply) => reply.status(201).send(await insertNetworkHost(app.sql, request.body)),
      );

      owner.patch(
        '/network-hosts/:id',
        {
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
          if (!host) throw hubError('NETWORK_HOST_NOT_FOUND');
          return host;
        },
      );

      owner.delete(
        '/network-hosts/:id',
        {
          schema: {
            tags,
            summary: 'Remove a network host',
            params: IdParams,
            response: { 204: NoContent, ...errors(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          if (!(await deleteNetworkHost(app.sql, request.params.id)))
            throw hubError('NETWORK_HOST_NOT_FOUND');
          return reply.status(204).send(null);
        },
      );
    }),
  );
};

export default {
  name: 'network-hosts',
  routes: plugin,
  tools: networkHostTools,
} satisfies HubModule;
