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
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HubModule } from '../../module.ts';
import { ownerOnly, publicAccess } from '../../plugins/auth.ts';
import { SetIconIndex } from './lookup.ts';
import { readRoutes } from './read-routes.ts';
import { RenderCache } from './render.ts';
import { IconSet } from './schema.ts';
import { setRoutes } from './set-routes.ts';

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(IconSet);
  // Shared by both halves: the owner's changes invalidate the name index the reads resolve through.
  const index = new SetIconIndex(app.sql);
  const cache = new RenderCache({
    dir: `${app.config.server.dataDir}/icon-cache`,
    maxDiskBytes: app.config.icons.cacheMaxMb * 1024 * 1024,
  });
  await app.register(publicAccess(readRoutes({ index, cache })));
  await app.register(ownerOnly(setRoutes({ index })));
};

export default {
  name: 'icons',
  routes: plugin,
} satisfies HubModule;
