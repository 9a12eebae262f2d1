// The icons anyone may read (a browser's <img> sends no token): search, set and brand icons as PNG or SVG, mdi
// icons, and the sets with their files. New renders without credentials are limited per address; what is cached is
// always served.
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import { brandSvg } from './brands.ts';
import { resolveIcon, type SetIconIndex, searchIcons } from './lookup.ts';
import { mdiDefaultColor, mdiSvg } from './mdi.ts';
import { fallbackTileSvg, type RenderCache, renderPng, snapSize, strongEtag } from './render.ts';
import {
  FileParams,
  IconBytes,
  IconSetDetail,
  IconSetList,
  iconFilePattern,
  MdiParams,
  MdiPngQuery,
  MdiSvgQuery,
  PngQuery,
  SearchQuery,
  SearchResult,
  SetParams,
  SlugParams,
  SvgQuery,
  wantsFallback,
} from './schema.ts';
import { sendIcon } from './serve.ts';
import { iconUrl, knownSet, setName } from './sets.ts';
import { findIconFile, findIconSet, listIconSets, listIcons } from './store.ts';

const tags = ['icons'];
const slugPattern = /^[a-z0-9_-]{1,100}$/;

/** New renders a minute one address without credentials may cause; what is cached is always served. */
export const anonymousRendersPerMinute = 120;

export function readRoutes(shared: { index: SetIconIndex; cache: RenderCache }): FastifyPluginAsyncTypebox {
  const { index, cache } = shared;
  return async (open) => {
    // Counted per address (an IPv6 /64 as one), only when an image is in neither cache and must be rendered.
    const renderLimit = open.createRateLimit({
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

    function unknownIcon(slug: string): never {
      throw hubError('ICON_UNKNOWN', `no icon "${slug}" in the uploaded sets or the brand icons`);
    }

    open.get(
      '/icons',
      {
        schema: {
          tags,
          summary: 'Search brand, set and Material Design icons by name, for an icon picker',
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
            const file = await findIconFile(open.sql, set_name, name, 'png');
            if (!file) unknownIcon(slug);
            return file.bytes;
          });
        } else if (source?.kind === 'set') {
          const { set_name, name, sha256 } = source.icon;
          image = await cache.get(`set-svg|${sha256}|${size}`, () =>
            render(
              request,
              reply,
              async () => (await findIconFile(open.sql, set_name, name, 'svg'))?.bytes ?? unknownIcon(slug),
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
          const file = await findIconFile(open.sql, source.icon.set_name, source.icon.name, 'svg');
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
    const mdiColor = (color: string | undefined) => color?.replace('#', '').toLowerCase() ?? mdiDefaultColor;

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
      async () => ({ items: await listIconSets(open.sql) }),
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
        const set = await findIconSet(open.sql, name);
        if (!set) throw hubError('ICON_SET_NOT_FOUND', name);
        const icons = (await listIcons(open.sql, name)).map((icon) => ({
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
            ? await findIconFile(open.sql, set, match[1], match[2] as 'svg' | 'png')
            : undefined;
        if (!found) throw hubError('ICON_UNKNOWN', `icon set ${set} has no file ${file}`);
        return sendIcon(request, reply, {
          type: found.type,
          bytes: found.bytes,
          etag: `"${found.sha256}"`,
        });
      },
    );
  };
}
