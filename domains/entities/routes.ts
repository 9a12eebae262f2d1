// The REST routes every entity of the write registry has alike: get one (404 when missing or outside the
// caller's read scope) and create, update, delete through performWrite, so every write, whoever makes it, takes
// the one path of write.ts. A domain's index.ts gives its schemas and summaries and keeps only its own routes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { HubError } from '../../lib/errors.ts';
import { conflictResponse, IfMatchHeaders, parseIfMatch, versionEtag } from '../../lib/etag.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { Principal } from '../../plugins/auth.ts';
import { PendingReceipt } from '../pending-changes/schema.ts';
import { type Entity, type EntityName, inReach } from './handler.ts';
import type { EntityType } from './registry.ts';
import { currentVersion } from './versions.ts';
import { performWrite } from './write.ts';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** One entity as the caller may read it: 404 when missing or outside the caller's read scope. */
export type Readable<Row> = (request: FastifyRequest, id: string) => Promise<Row>;

/** A Readable over a lookup that may see the request (resources show agents fewer columns). */
export function readableBy<Row extends { space_id: string }>(
  what: EntityName,
  find: (id: string, request: FastifyRequest) => Promise<Row | undefined>,
): Readable<Row> {
  return async (request, id) => {
    return inReach(request.principal, await find(id, request), what);
  };
}

export interface EntityRoutes {
  entity_type: EntityType;
  /** The collection: POST on it creates; GET, PATCH and DELETE act on `<path>/:id`. */
  path: string;
  tags: string[];
  /** The entity in answers: its registered schema or a reference to it. */
  entity: TSchema;
  read: Readable<unknown>;
  body: { create: TSchema; update: TSchema };
  summary: { get: string; create: string; update: string; delete: string };
  /** Shapes a written entity for the caller (default: as the handler returned it). */
  present?: (entity: Entity, principal: Principal) => unknown | Promise<unknown>;
}

/**
 * Reads the entity and its version for an answer with an ETag. The version is read first: a write landing in
 * between makes the tag older than the body, so a client sending it back is refused, never let through.
 */
async function readWithEtag(
  spec: EntityRoutes,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
): Promise<{ row: unknown; version: number | undefined }> {
  const version = await currentVersion(request.server.sql, spec.entity_type, id);
  const row = await spec.read(request, id);
  if (version !== undefined) reply.header('etag', versionEtag(version));
  return { row, version };
}

/** Registers GET `<path>/:id`, POST `<path>`, PATCH and DELETE `<path>/:id` for one entity type. */
export function entityRoutes(app: App, spec: EntityRoutes): void {
  const { entity_type, tags, entity, present } = spec;
  const item = `${spec.path}/:id`;

  app.get(
    item,
    {
      schema: {
        tags,
        summary: spec.summary.get,
        description: 'The ETag header is the version: send it back as If-Match with an edit.',
        params: IdParams,
        response: { 200: entity, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => (await readWithEtag(spec, request, reply, request.params.id)).row,
  );

  app.post(
    spec.path,
    {
      schema: {
        tags,
        summary: spec.summary.create,
        body: spec.body.create,
        response: { 201: entity, 202: PendingReceipt, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, { entity_type, action: 'create', payload: request.body }, present),
  );

  app.patch(
    item,
    {
      schema: {
        tags,
        summary: spec.summary.update,
        description:
          'With If-Match, an edit made against an older version is 412 VERSION_CHANGED with the current entity ' +
          '(and its ETag); without it the edit applies to whatever is current. The answer carries the new ETag.',
        params: IdParams,
        headers: IfMatchHeaders,
        body: spec.body.update,
        response: {
          200: entity,
          202: PendingReceipt,
          ...errors(400, 401, 403, 404, 409),
          412: conflictResponse(entity),
        },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      const if_match = parseIfMatch(request.headers['if-match']);
      try {
        return await performWrite(
          request,
          reply,
          { entity_type, action: 'update', entity_id: id, payload: request.body, if_match },
          present,
        );
      } catch (error) {
        if (!(error instanceof HubError) || error.code !== 'VERSION_CHANGED') throw error;
        const { row, version } = await readWithEtag(spec, request, reply, id);
        throw new HubError(error.code, error.message, { current_version: version, current: row });
      }
    },
  );

  app.delete(
    item,
    {
      schema: {
        tags,
        summary: spec.summary.delete,
        params: IdParams,
        response: { 204: NoContent, 202: PendingReceipt, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, { entity_type, action: 'delete', entity_id: request.params.id }),
  );
}
