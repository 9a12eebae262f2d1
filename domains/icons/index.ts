// Icons, served by the hub itself so no page ever asks a CDN: uploaded icon sets (zip or URL) and brand icons from
// the simple-icons package rendered locally. Reads are public (a browser's <img> sends no token); writes are the
// owner's. What anyone may ask for is bounded: sizes snap to a fixed list, the render cache is capped
// (ICON_CACHE_MAX_MB) and a caller without credentials gets at most 120 new renders a minute per address.
//   GET    /icons                  search brand and set icons by name (the icon picker)
//   GET    /icons/:slug.png        a set icon, else a brand icon, as PNG (?set= ?size= ?color= ?fallback=)
//   GET    /icons/:slug.svg        the same as a vector
//   GET    /icons/mdi/:name.png    a Material Design icon as PNG (?size= ?color=)
//   GET    /icons/mdi/:name.svg    the same as a vector (?color=)
//   GET    /icon-sets              sets with their icon counts
//   GET    /icon-sets/:set         a set's icons
//   GET    /icon-sets/:set/:file   one icon's bytes (file: <name>.svg or <name>.png)
//   POST   /icon-sets              upload a set: multipart name + file (a zip), or JSON { name, url } (owner)
//   POST   /icon-sets/:set/icons   add one icon: multipart file (svg or png), optional name (owner)
//   DELETE /icon-sets/:set         delete a set and its icons (owner)
import { readFile } from 'node:fs/promises';
import multipart from '@fastify/multipart';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hubError, hubErrorWith } from '../../lib/errors.ts';
import { discardFile, type ReceivedFile, readForm } from '../../lib/incoming.ts';
import { FetchRefusedError, safeFetch } from '../../lib/safe-fetch.ts';
import { errors, NoContent } from '../../lib/schemas.ts';
import type { ZipSource } from '../../lib/zip.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly, publicAccess } from '../../plugins/auth.ts';
import { brandSvg } from './brands.ts';
import { takeIcon } from './ingest.ts';
import { resolveIcon, SetIconIndex, searchIcons } from './lookup.ts';
import { mdiDefaultColor, mdiSvg } from './mdi.ts';
import { fallbackTileSvg, RenderCache, renderPng, snapSize, strongEtag } from './render.ts';
import {
  AddedIcon,
  FileParams,
  IconBytes,
  IconSet,
  IconSetDetail,
  IconSetList,
  iconFilePattern,
  MdiParams,
  MdiPngQuery,
  MdiSvgQuery,
  PngQuery,
  ReplaceQuery,
  SearchQuery,
  SearchResult,
  SetParams,
  SlugParams,
  SvgQuery,
  setNamePattern,
  UploadResult,
  type UrlUpload,
  wantsFallback,
} from './schema.ts';
import { sendIcon } from './serve.ts';
import { assertSetFree, storeIconSet } from './sets.ts';
import { deleteIconSet, findIconFile, findIconSet, listIconSets, listIcons, putIcon } from './store.ts';

const tags = ['icons'];
const setName = new RegExp(setNamePattern);
const slugPattern = /^[a-z0-9_-]{1,100}$/;
const iconUrl = (set: string, name: string, type: string) => `/api/icon-sets/${set}/${name}.${type}`;

/** New renders a minute one address without credentials may cause; what is cached is always served. */
export const anonymousRendersPerMinute = 120;

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(IconSet);
  const config = app.config;
  const index = new SetIconIndex(app.sql);
  const cache = new RenderCache({
    dir: `${config.server.dataDir}/icon-cache`,
    maxDiskBytes: config.icons.cacheMaxMb * 1024 * 1024,
  });
  // Counted per address (an IPv6 /64 as one), only when an image is in neither cache and must be rendered.
  const renderLimit = app.createRateLimit({
    max: anonymousRendersPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => normalizeIP(request.ip, 64),
    allowList: (request) => request.principal !== null,
  });

  /** A render for this caller, unless it has used up its renders for the minute (429 with Retry-After). */
  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    svg: () => Promise<string | Buffer> | string,
    size: number,
  ): Promise<Buffer> {
    const limit = await renderLimit(request);
    if (!limit.isAllowed && limit.isExceeded) {
      reply.header('retry-after', String(Math.max(1, limit.ttlInSeconds)));
      throw hubError(
        'RATE_LIMITED',
        `at most ${anonymousRendersPerMinute} new icon renders a minute without credentials; cached icons ` +
          `are still served (retry in ${Math.max(1, limit.ttlInSeconds)} s)`,
      );
    }
    return renderPng(await svg(), size);
  }

  function knownSet(name: string): string {
    if (!setName.test(name)) throw hubError('ICON_SET_NOT_FOUND', name);
    return name;
  }

  function unknownIcon(slug: string): never {
    throw hubError('ICON_UNKNOWN', `no icon "${slug}" in the uploaded sets or the brand icons`);
  }

  await app.register(
    publicAccess(async (open) => {
      open.get(
        '/icons',
        {
          schema: {
            tags,
            summary: 'Search brand and set icons by name, for an icon picker',
            description: 'Exact matches first, then names starting with q, then names holding it.',
            querystring: SearchQuery,
            response: { 200: SearchResult, ...errors(400) },
          },
        },
        async (request) => {
          const { q, limit, offset } = request.query;
          const hits = await searchIcons(index, q);
          return { items: hits.slice(offset, offset + limit), total: hits.length, limit, offset };
        },
      );

      open.get(
        '/icons/:slug.png',
        {
          schema: {
            tags,
            summary: 'An icon as PNG, from an uploaded set or the brand icons, rendered locally',
            description:
              'Sources in order: an icon of that name in an uploaded set (?set= picks the set), then a ' +
              'simple-icons brand, drawn in its colour or ?color=. SVGs are rendered at ?size= pixels, snapped up ' +
              'to the next of 16, 24, 32, 48, 64, 96, 128, 192, 256, 512; a PNG set icon is sent as uploaded. ' +
              'Cached in memory and on disk (ICON_CACHE_MAX_MB, least recently used first out); Cache-Control ' +
              `no-cache with a strong ETag. Without credentials an address gets at most ${anonymousRendersPerMinute} ` +
              'new renders a minute (429 RATE_LIMITED with Retry-After beyond); cached images are always served.',
            params: SlugParams,
            querystring: PngQuery,
            response: { ...IconBytes('image/png'), ...errors(400, 404) },
          },
        },
        async (request, reply) => {
          const { slug } = request.params;
          const { set } = request.query;
          const size = snapSize(request.query.size);
          const fallback = wantsFallback(request.query.fallback);
          const color = request.query.color?.replace('#', '').toLowerCase();
          const source = slugPattern.test(slug) ? await resolveIcon(index, slug, { set }) : undefined;
          let image: { bytes: Buffer; etag: string };
          if (source?.kind === 'set' && source.icon.type === 'png') {
            const { set_name, name, sha256 } = source.icon;
            image = await cache.get(`set-png|${sha256}`, async () => {
              const file = await findIconFile(app.sql, set_name, name, 'png');
              if (!file) unknownIcon(slug);
              return file.bytes;
            });
          } else if (source?.kind === 'set') {
            const { set_name, name, sha256 } = source.icon;
            image = await cache.get(`set-svg|${sha256}|${size}`, () =>
              render(
                request,
                reply,
                async () => (await findIconFile(app.sql, set_name, name, 'svg'))?.bytes ?? unknownIcon(slug),
                size,
              ),
            );
          } else if (source) {
            const brand = source.brand;
            image = await cache.get(`brand|${brand.slug}|${color ?? brand.hex}|${size}`, () =>
              render(request, reply, () => brandSvg(brand, color), size),
            );
          } else if (fallback && slugPattern.test(slug)) {
            image = await cache.get(`tile|${slug}|${size}`, () =>
              render(request, reply, () => fallbackTileSvg(slug), size),
            );
          } else {
            unknownIcon(slug);
          }
          return sendIcon(request, reply, { type: 'png', ...image });
        },
      );

      open.get(
        '/icons/:slug.svg',
        {
          schema: {
            tags,
            summary: 'An icon as SVG: a set SVG of that name, else the brand icon',
            params: SlugParams,
            querystring: SvgQuery,
            response: { ...IconBytes('image/svg+xml'), ...errors(400, 404) },
          },
        },
        async (request, reply) => {
          const { slug } = request.params;
          const { set } = request.query;
          const fallback = wantsFallback(request.query.fallback);
          const color = request.query.color?.replace('#', '').toLowerCase();
          const source = slugPattern.test(slug)
            ? await resolveIcon(index, slug, { set, type: 'svg' })
            : undefined;
          let bytes: Buffer;
          if (source?.kind === 'set') {
            const file = await findIconFile(app.sql, source.icon.set_name, source.icon.name, 'svg');
            if (!file) unknownIcon(slug);
            return sendIcon(request, reply, { type: 'svg', bytes: file.bytes, etag: `"${file.sha256}"` });
          }
          if (source) bytes = Buffer.from(brandSvg(source.brand, color));
          else if (fallback && slugPattern.test(slug)) bytes = Buffer.from(fallbackTileSvg(slug));
          else unknownIcon(slug);
          return sendIcon(request, reply, { type: 'svg', bytes, etag: strongEtag(bytes) });
        },
      );

      /** An mdi icon's SVG in the colour asked for, or 404 ICON_UNKNOWN. */
      async function mdi(name: string, color: string | undefined): Promise<string> {
        const svg = await mdiSvg(name, color);
        if (svg === undefined) throw hubError('ICON_UNKNOWN', `no Material Design icon "${name}"`);
        return svg;
      }
      const mdiColor = (color: string | undefined) =>
        color?.replace('#', '').toLowerCase() ?? mdiDefaultColor;

      open.get(
        '/icons/mdi/:name.png',
        {
          schema: {
            tags,
            summary: 'A Material Design icon (mdi:<name>) as PNG, rendered locally',
            description:
              `Drawn in ?color= (default #${mdiDefaultColor}) at ?size= pixels, snapped up like the other icons; ` +
              'cached and limited like them.',
            params: MdiParams,
            querystring: MdiPngQuery,
            response: { ...IconBytes('image/png'), ...errors(400, 404) },
          },
        },
        async (request, reply) => {
          const { name } = request.params;
          const color = mdiColor(request.query.color);
          const size = snapSize(request.query.size);
          const svg = await mdi(name, color);
          const image = await cache.get(`mdi|${name}|${color}|${size}`, () =>
            render(request, reply, () => svg, size),
          );
          return sendIcon(request, reply, { type: 'png', ...image });
        },
      );

      open.get(
        '/icons/mdi/:name.svg',
        {
          schema: {
            tags,
            summary: 'A Material Design icon (mdi:<name>) as SVG',
            description: `Drawn in ?color= (default #${mdiDefaultColor}).`,
            params: MdiParams,
            querystring: MdiSvgQuery,
            response: { ...IconBytes('image/svg+xml'), ...errors(400, 404) },
          },
        },
        async (request, reply) => {
          const bytes = Buffer.from(await mdi(request.params.name, mdiColor(request.query.color)));
          return sendIcon(request, reply, { type: 'svg', bytes, etag: strongEtag(bytes) });
        },
      );

      open.get(
        '/icon-sets',
        {
          schema: {
            tags,
            summary: 'List icon sets with their icon counts',
            response: { 200: IconSetList },
          },
        },
        async () => ({ items: await listIconSets(app.sql) }),
      );

      open.get(
        '/icon-sets/:set',
        {
          schema: {
            tags,
            summary: "A set's icons",
            params: SetParams,
            response: { 200: IconSetDetail, ...errors(404) },
          },
        },
        async (request) => {
          const name = knownSet(request.params.set);
          const set = await findIconSet(app.sql, name);
          if (!set) throw hubError('ICON_SET_NOT_FOUND', name);
          const icons = (await listIcons(app.sql, name)).map((icon) => ({
            ...icon,
            ref: `set:${name}:${icon.name}`,
            url: iconUrl(name, icon.name, icon.type),
          }));
          return { ...set, icons };
        },
      );

      open.get(
        '/icon-sets/:set/:file',
        {
          schema: {
            tags,
            summary: 'One icon file',
            description:
              'file is <name>.svg or <name>.png; any other name does not exist (404). Cache-Control no-cache ' +
              'with a strong ETag (304 on If-None-Match), nosniff, and for SVG a CSP that runs nothing.',
            params: FileParams,
            response: { ...IconBytes('image/svg+xml or image/png'), ...errors(404) },
          },
        },
        async (request, reply) => {
          const { set, file } = request.params;
          const match = iconFilePattern.exec(file);
          const found =
            match && setName.test(set)
              ? await findIconFile(app.sql, set, match[1], match[2] as 'svg' | 'png')
              : undefined;
          if (!found) throw hubError('ICON_UNKNOWN', `icon set ${set} has no file ${file}`);
          return sendIcon(request, reply, {
            type: found.type,
            bytes: found.bytes,
            etag: `"${found.sha256}"`,
          });
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
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
              await assertSetFree(app.sql, name, replace);
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
            await assertSetFree(app.sql, name, replace);
            zip = await fetchZip(body.url);
          }
          let stored: Awaited<ReturnType<typeof storeIconSet>>;
          try {
            stored = await storeIconSet(app.sql, config.icons.zip, name, replace, zip);
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
          if (!(await findIconSet(app.sql, set))) throw hubError('ICON_SET_NOT_FOUND', set);
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
            const added = await app.sql.begin(async (tx) => {
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
          const deleted = await deleteIconSet(app.sql, set);
          index.invalidate();
          if (!deleted) throw hubError('ICON_SET_NOT_FOUND', set);
          return reply.status(204).send(null);
        },
      );
    }),
  );
};

export default {
  name: 'icons',
  routes: plugin,
} satisfies HubModule;
