// Export and import: a space as a folder of Markdown (a zip Obsidian opens as a vault), everything the owner has as
// one JSON document, and importing a zip of Markdown or a browser's bookmark file into a space. Owner only.
//
// Routes it registers (access in brackets):
//   GET  /api/spaces/:id/export.zip   [owner only]
//   GET  /api/export.json             [owner only]
//   POST /api/spaces/:id/import       [owner only]
import { readFile } from 'node:fs/promises';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { discardFile, readForm } from '../../lib/incoming.ts';
import { errors, IdParams } from '../../lib/schemas.ts';
import { version } from '../../lib/version.ts';
import type { HubModule } from '../../module.ts';
import { spaceExists } from '../spaces/exists.ts';
import { spaceZip } from './export.ts';
import { importInto, sourceKind } from './import.ts';
import { safeName } from './markdown.ts';
import { ExportJson, ImportForm, ImportQuery, ImportReport } from './schema.ts';
import { everything, schemaVersion, snapshot, spaceContent } from './store.ts';

const tags = ['transfer'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  const config = app.config;
  app.addSchema(ImportReport);
  app.addSchema(ExportJson);
  await app.register(multipart, {
    limits: { fileSize: config.capture.uploadMaxBytes, files: 1, fields: 0, parts: 1 },
  });

  app.get(
    '/spaces/:id/export.zip',
    {
      schema: {
        tags,
        summary: 'Export a space as Markdown (a zip Obsidian opens as a vault)',
        description:
          'A folder per page mirroring the tree (a page is Name.md, its children in the folder Name/ beside it), ' +
          'each file with YAML front matter (id, title, created, updated, tags) and the body as written; ' +
          'projects with their tasks as task lists in Projects/, captured documents in Documents/ with their ' +
          'source URL, references in bookmarks.html (a Netscape bookmark file). The zip is streamed.',
        params: IdParams,
        produces: ['application/zip'],
        response: {
          200: Type.Unknown({ description: 'application/zip' }),
          ...errors(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const content = await snapshot(app.sql, (tx) => spaceContent(tx, request.params.id));
      if (!content) throw hubError('SPACE_NOT_FOUND', request.params.id);
      const file = `${safeName(content.space.name)}.zip`;
      return reply
        .type('application/zip')
        .header(
          'content-disposition',
          `attachment; filename="${file.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(file)}`,
        )
        .header('cache-control', 'no-store')
        .send(spaceZip(content));
    },
  );

  app.get(
    '/export.json',
    {
      schema: {
        tags,
        summary: 'Export everything the owner has as JSON',
        description:
          'Spaces, pages, projects, tasks, references, resources, documents, settings and integrations, read ' +
          'in one consistent moment, with schema_version (the last migration). Secrets are never included: ' +
          'each stored one shows as { "set": true }.',
        response: { 200: ExportJson, ...errors(401, 403) },
      },
    },
    async (_request, reply) => {
      const data = await snapshot(app.sql, async (tx) => ({
        schema_version: await schemaVersion(tx),
        ...(await everything(tx)),
      }));
      const stamp = new Date().toISOString();
      return reply
        .header('content-disposition', `attachment; filename="ops-hub-export-${stamp.slice(0, 10)}.json"`)
        .header('cache-control', 'no-store')
        .send({ ...data, exported_at: stamp, hub_version: version });
    },
  );

  app.post(
    '/spaces/:id/import',
    {
      schema: {
        tags,
        summary: 'Import a zip of Markdown files or a bookmark file into a space',
        description:
          'multipart/form-data with one file. A zip of Markdown files: folders become the page tree, front ' +
          'matter is kept (id, title, created, updated, tags; other keys stay at the start of the body), bodies ' +
          'as written ([[wiki links]] kept). A page whose front matter id is a page of this space is updated; ' +
          'otherwise a page of the same title under the same parent is; otherwise one is created. A Netscape ' +
          'bookmark file (as browsers, Karakeep and linkding export it), alone or in the zip: each link becomes ' +
          'a reference (matched by URL), its folders tags, ADD_DATE its created time; ?capture=true also queues ' +
          'a capture of each. One transaction; ?dry_run=true answers the counts and writes nothing. Zip limits ' +
          'as for icon sets (ICON_ZIP_MAX_ENTRIES, ICON_ZIP_MAX_TOTAL_BYTES, ICON_ZIP_MAX_ENTRY_BYTES, ' +
          'ICON_ZIP_MAX_RATIO; 413 ZIP_LIMIT_EXCEEDED), an absolute, `..`, symlink or encrypted entry is 400 ' +
          'ZIP_UNSAFE_ENTRY; any other file is 415 IMPORT_FORMAT_UNKNOWN.',
        params: IdParams,
        querystring: ImportQuery,
        consumes: ['multipart/form-data'],
        requestBody: { 'multipart/form-data': ImportForm },
        response: { 200: ImportReport, ...errors(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      if (!request.isMultipart())
        throw hubError('UNSUPPORTED_MEDIA_TYPE', 'send multipart/form-data with the field file');
      const spaceId = request.params.id;
      const { file } = await readForm(request.parts(), {
        dataDir: config.server.dataDir,
        maxBytes: config.capture.uploadMaxBytes,
        limitName: 'UPLOAD_MAX_BYTES',
        fields: [],
      });
      try {
        if (!(await spaceExists(app.sql, spaceId))) throw hubError('SPACE_NOT_FOUND', spaceId);
        const kind = sourceKind(file.head);
        const source =
          kind === 'zip'
            ? ({ kind, zip: { path: file.path } } as const)
            : ({
                kind,
                name: file.name || 'bookmarks.html',
                html: await readFile(file.path, 'utf8'),
              } as const);
        const report = await importInto({ sql: app.sql, config }, spaceId, source, {
          dryRun: request.query.dry_run,
          capture: request.query.capture,
        });
        return { ...report, dry_run: request.query.dry_run };
      } finally {
        await discardFile(file);
      }
    },
  );
};

export default {
  name: 'transfer',
  routes: plugin,
} satisfies HubModule;
