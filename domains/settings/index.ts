// Owner-only access to the generic settings store.
//
// Routes it registers (access in brackets):
//   GET    /api/settings       [owner only]
//   GET    /api/settings/:key  [owner only]
//   PUT    /api/settings/:key  [owner only]
//   DELETE /api/settings/:key  [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { writeSetting } from './registry.ts';
import { Key, Setting } from './schema.ts';
import { deleteSetting, getSetting, listSettings, putSetting } from './store.ts';

const tags = ['settings'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Setting);

  app.get(
    '/settings',
    {
      schema: {
        tags,
        summary: 'List settings',
        response: { 200: Type.Object({ items: Type.Array(Type.Ref('Setting')) }), ...errors(401, 403) },
      },
    },
    async () => ({ items: await listSettings(app.sql) }),
  );

  app.get(
    '/settings/:key',
    {
      schema: {
        tags,
        summary: 'Read one setting',
        params: Type.Object({ key: Key }),
        response: { 200: Type.Object({ key: Key, value: Type.Unknown() }), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const value = await getSetting(app.sql, request.params.key);
      if (value === undefined) throw hubError('SETTING_NOT_FOUND', request.params.key);
      return { key: request.params.key, value };
    },
  );

  app.put(
    '/settings/:key',
    {
      schema: {
        tags,
        summary: 'Write one setting',
        params: Type.Object({ key: Key }),
        body: Type.Object({ value: Type.Unknown() }, { required: ['value'], additionalProperties: false }),
        response: { 200: Type.Ref('Setting'), ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const definition = app.hub.settings.get(request.params.key);
      if (definition) return writeSetting(app.sql, definition, request.body.value);
      return putSetting(app.sql, request.params.key, request.body.value);
    },
  );

  app.delete(
    '/settings/:key',
    {
      schema: {
        tags,
        summary: 'Remove one setting',
        params: Type.Object({ key: Key }),
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await deleteSetting(app.sql, request.params.key)))
        throw hubError('SETTING_NOT_FOUND', request.params.key);
      return reply.status(204).send(null);
    },
  );
};

export default {
  name: 'settings',
  routes: ownerOnly(plugin),
} satisfies HubModule;
