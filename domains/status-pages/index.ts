// Status pages: the owner lists monitored services on a page, and a public page is served to anyone, showing of
// each service its name, state and uptime only (domains/health/uptime.ts gives nothing else). Badges of a service
// are served while a public page lists it.
//   POST   /api/status-pages                      owner: make a page (201); a slug taken is 409
//   GET    /api/status-pages                      owner: every page
//   GET    /api/status-pages/:slug                owner
//   PATCH  /api/status-pages/:slug                owner: change some fields (services replaces the list)
//   DELETE /api/status-pages/:slug                owner
//   GET    /api/status/:slug                      public: the page's JSON (a page not public: 404 but to the owner)
//   GET    /api/badge/:service_id/status.svg      public: the service's state as a badge
//   GET    /api/badge/:service_id/uptime.svg      public: its uptime over ?window=24h|7d|30d as a badge
// The owner's routes are in page-routes.ts, the public ones in public-routes.ts, their logic in pages.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HubModule } from '../../module.ts';
import { ownerOnly, publicAccess } from '../../plugins/auth.ts';
import { pageRoutes } from './page-routes.ts';
import { publicRoutes } from './public-routes.ts';

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(publicAccess(publicRoutes));
  await app.register(ownerOnly(pageRoutes));
};

export default { name: 'status-pages', routes: plugin } satisfies HubModule;
