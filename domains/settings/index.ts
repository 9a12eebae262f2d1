// Owner-only access to the generic settings store.
//
// Routes it registers (access in brackets):
//   GET    /api/settings       [owner only]
//   GET    /api/settings/:key  [owner only]
//   PUT    /api/settings/:key  [owner only] (If-Match: 412 when the setting changed since)
//   DELETE /api/settings/:key  [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HubError, hubError } from '../../lib/errors.ts';
import {
  conflictResponse,
  IfMatchHeaders,
  ifMatchAllows,
  parseIfMatch,
  versionEtag,
} from '../../lib/etag.ts';
import { errors, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { writeSetting } from './registry.ts';
import { Key, KeyValue, Setting } from './schema.ts';
import { deleteSetting, findSettingRow, listSettings, putSetting } from './store.ts';

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
        description: 'The ETag header is its version: send it back as If-Match with a PUT.',
        params: Type.Object({ key: Key }),
        response: { 200: KeyValue, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const row = await findSettingRow(app.sql, request.params.key);
      if (row === undefined) throw hubError('SETTING_NOT_FOUND', request.params.key);
      reply.header('etag', versionEtag(row.version));
      return { key: row.key, value: row.value };
    },
  );

  app.put(
    '/settings/:key',
    {
      schema: {
        tags,
        summary: 'Write one setting',
        description:
          'With If-Match, a setting changed (or removed) since that ETag is 412 VERSION_CHANGED with the current ' +
          'value; without it the write applies. The answer carries the new ETag.',
        params: Type.Object({ key: Key }),
        headers: IfMatchHeaders,
        body: Type.Object({ value: Type.Unknown() }, { required: ['value'], additionalProperties: false }),
        response: { 200: Type.Ref('Setting'), ...errors(400, 401, 403), 412: conflictResponse(KeyValue) },
      },
    },
    async (request, reply) => {
      const { key } = request.params;
      const condition = parseIfMatch(request.headers['if-match']);
      const definition = app.hub.settings.get(key);
      const saved = await app.sql.begin(async (tx) => {
        if (condition) {
          const current = await findSettingRow(tx, key, true);
          if (!current || !ifMatchAllows(condition, current.version)) {
            if (current) reply.header('etag', versionEtag(current.version));
            throw new HubError(
              'VERSION_CHANGED',
              current
                ? `the setting "${key}" changed: it is at version ${current.version}`
                : `the setting "${key}" is not set any more`,
              current
                ? { current_version: current.version, current: { key, value: current.value } }
                : { current_version: 0, current: null },
            );
          }
        }
        return definition
          ? writeSetting(tx, definition, request.body.value)
          : putSetting(tx, key, request.body.value);
      });
      reply.header('etag', versionEtag(saved.version));
      return saved;
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
