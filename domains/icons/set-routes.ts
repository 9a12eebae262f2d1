// The owner's icon sets: upload a zip (sent or fetched from a URL), add one icon, delete a set. Every change
// invalidates the name index the read routes resolve through.
import { readFile } from 'node:fs/promises';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { hubError, hubErrorWith } from '../../lib/errors.ts';
import { discardFile, type ReceivedFile, readForm } from '../../lib/incoming.ts';
import { FetchRefusedError, safeFetch } from '../../lib/safe-fetch.ts';
import { errors, NoContent } from '../../lib/schemas.ts';
import type { ZipSource } from '../../lib/zip.ts';
import { takeIcon } from './ingest.ts';
import type { SetIconIndex } from './lookup.ts';
import { AddedIcon, ReplaceQuery, SetParams, UploadResult, type UrlUpload } from './schema.ts';
import { assertSetFree, iconUrl, knownSet, setName, storeIconSet } from './sets.ts';
import { deleteIconSet, findIconSet, putIcon } from './store.ts';

const tags = ['icons'];

export function setRoutes(shared: { index: SetIconIndex }): FastifyPluginAsyncTypebox {
  const { index } = shared;
  return async (owner) => {
    const config = owner.config;
    await owner.register(multipart, {
      limits: { fileSize: config.capture.uploadMaxBytes, files: 1, fields: 2, fieldSize: 1024, parts: 3 },
    });

    /** The multipart fields (lib/incoming.ts's reader): `name`, and the one file, streamed to disk under `limit`. */
    async function readParts(request: FastifyRequest, fields: string[], limit: [number, string]) {
      const form = await readForm(request.parts(), {
        dataDir: config.server.dataDir,
        maxBytes: limit[0],
        limitName: limit[1],
        fields,
      });
      return { values: form.fields, file: form.file };
    }

    async function fetchZip(url: string): Promise<Buffer> {
      try {
        const response = await safeFetch(url, {
          // The same address rules as captures: the private addresses the owner lists are reachable.
          allowPrivate: config.ingest.allowPrivateFetch,
          allowList: config.ingest.allowPrivate,
          maxBytes: config.capture.uploadMaxBytes,
          totalTimeoutMs: config.ingest.timeoutMs,
        });
        if (response.status < 200 || response.status > 299) {
          throw hubError('ICON_SET_FETCH_FAILED', `${url} answered HTTP ${response.status}`);
        }
        return response.body;
      } catch (error) {
        if (error instanceof FetchRefusedError) {
          const code = ['timeout', 'connect', 'dns'].includes(error.rule)
            ? 'ICON_SET_FETCH_FAILED'
            : 'URL_REFUSED';
          throw hubError(code, `url: ${error.message}`);
        }
        throw error;
      }
    }

    owner.post(
      '/icon-sets',
      {
        schema: {
          tags,
          summary: 'Upload an icon set (a zip, sent or fetched from a URL)',
          description:
            'multipart/form-data with name ([a-z0-9-]{1,40}) and file (a zip), or JSON { name, url } for a zip ' +
            'fetched through the guarded client (private and loopback addresses refused unless ' +
            'INGEST_ALLOW_PRIVATE lists them). .svg and .png ' +
            'entries become icons (folders flattened, names normalised to [a-z0-9-]), checked by their bytes; ' +
            'SVGs are sanitised. Limits: ICON_ZIP_MAX_ENTRIES, ICON_ZIP_MAX_TOTAL_BYTES, ' +
            'ICON_ZIP_MAX_ENTRY_BYTES, ICON_ZIP_MAX_RATIO; an archive over one, or with an absolute, `..`, ' +
            'symlink or encrypted entry, is refused whole. 415 when no file is acceptable; 409 when the name ' +
            'exists, unless ?replace=true.',
          consumes: ['multipart/form-data', 'application/json'],
          querystring: ReplaceQuery,
          response: { 201: UploadResult, ...errors(400, 401, 403, 409, 413, 415, 502) },
        },
      },
      async (request, reply) => {
        const { replace } = request.query;
        let name: string;
        let zip: ZipSource;
        let received: ReceivedFile | null = null;
        if (request.isMultipart()) {
          const { values, file } = await readParts(
            request,
            ['name'],
            [config.capture.uploadMaxBytes, 'UPLOAD_MAX_BYTES'],
          );
          received = file;
          name = values.name ?? '';
          try {
            if (!setName.test(name)) throw hubError('VALIDATION_FAILED', 'name must match [a-z0-9-]{1,40}');
            await assertSetFree(owner.sql, name, replace);
          } catch (error) {
            await discardFile(received);
            throw error;
          }
          zip = { path: file.path };
        } else {
          const body = request.body as
            | Partial<Record<keyof typeof UrlUpload.properties, unknown>>
            | undefined;
          if (typeof body !== 'object' || body === null) {
            throw hubError('VALIDATION_FAILED', 'send multipart name and file, or JSON { name, url }');
          }
          if (typeof body.name !== 'string' || !setName.test(body.name)) {
            throw hubError('VALIDATION_FAILED', 'name must match [a-z0-9-]{1,40}');
          }
          if (typeof body.url !== 'string' || body.url.length > 2048) {
            throw hubError('VALIDATION_FAILED', 'url must be an http(s) URL of a zip');
          }
          name = body.name;
          await assertSetFree(owner.sql, name, replace);
          zip = await fetchZip(body.url);
        }
        let stored: Awaited<ReturnType<typeof storeIconSet>>;
        try {
          stored = await storeIconSet(owner.sql, config.icons.zip, name, replace, zip);
        } finally {
          index.invalidate();
          // Before the answer: a client that reads it finds nothing left of the upload.
          await discardFile(received);
        }
        const accepted = stored.accepted.map((icon) => ({
          file: icon.file,
          name: icon.name,
          type: icon.type,
          url: iconUrl(name, icon.name, icon.type),
        }));
        return reply.status(201).send({ set: stored.set, accepted, rejected: stored.rejected });
      },
    );

    owner.post(
      '/icon-sets/:set/icons',
      {
        schema: {
          tags,
          summary: 'Add one icon to a set',
          description:
            'multipart/form-data with file (.svg or .png, checked by its bytes; SVG sanitised; at most ' +
            `ICON_ZIP_MAX_ENTRY_BYTES, now ${config.icons.zip.maxEntryBytes}, else 413) and optionally name (else ` +
            'taken from the file name). 409 when the set has that name, unless ?replace=true.',
          consumes: ['multipart/form-data'],
          params: SetParams,
          querystring: ReplaceQuery,
          response: { 201: AddedIcon, ...errors(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        const set = knownSet(request.params.set);
        if (!request.isMultipart()) {
          throw hubError('UNSUPPORTED_MEDIA_TYPE', 'send multipart/form-data with the field file');
        }
        if (!(await findIconSet(owner.sql, set))) throw hubError('ICON_SET_NOT_FOUND', set);
        // One icon is held to what one entry of a set's zip may be.
        const { values, file } = await readParts(
          request,
          ['name'],
          [config.icons.zip.maxEntryBytes, 'ICON_ZIP_MAX_ENTRY_BYTES'],
        );
        const bytes = await readFile(file.path).finally(() => discardFile(file));
        if (values.name !== undefined && !/^[a-z0-9-]{1,100}$/.test(values.name)) {
          throw hubError('VALIDATION_FAILED', 'name must match [a-z0-9-]{1,100}');
        }
        const icon = await takeIcon(file.name, bytes, values.name);
        if (!('name' in icon)) {
          throw hubErrorWith({ rejected: [icon] }, 'NO_ACCEPTABLE_ICON', `${icon.file}: ${icon.reason}`);
        }
        try {
          const added = await owner.sql.begin(async (tx) => {
            if (!(await findIconSet(tx, set))) throw hubError('ICON_SET_NOT_FOUND', set);
            return putIcon(tx, set, icon, request.query.replace);
          });
          if (!added) throw hubError('ICON_EXISTS', icon.name);
        } finally {
          index.invalidate();
        }
        return reply.status(201).send({
          name: icon.name,
          type: icon.type,
          size: icon.bytes.length,
          sha256: icon.sha256,
          ref: `set:${set}:${icon.name}`,
          url: iconUrl(set, icon.name, icon.type),
        });
      },
    );

    owner.delete(
      '/icon-sets/:set',
      {
        schema: {
          tags,
          summary: 'Delete an icon set and its icons',
          params: SetParams,
          response: { 204: NoContent, ...errors(401, 403, 404) },
        },
      },
      async (request, reply) => {
        const set = knownSet(request.params.set);
        const deleted = await deleteIconSet(owner.sql, set);
        index.invalidate();
        if (!deleted) throw hubError('ICON_SET_NOT_FOUND', set);
        return reply.status(204).send(null);
      },
    );
  };
}
