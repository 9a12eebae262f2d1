// Apps: the launcher's tiles, each with its link, icon, group and position, and the state of the monitored service
// it follows.
//
// Routes it registers (access in brackets; get, create, update and delete come from entityRoutes in
// domains/entities/routes.ts, so an agent's writes wait for approval like its other entity writes):
//   GET    /api/apps      [agent or owner]
//   GET    /api/apps/:id  [agent or owner]
//   POST   /api/apps      [agent or owner]
//   PATCH  /api/apps/:id  [agent or owner]
//   DELETE /api/apps/:id  [agent or owner]
//   GET    /api/apps/:id/icon          [owner]  the site's favicon as PNG (looked for on first read)
//   POST   /api/apps/:id/icon/refresh  [owner]  look for the favicon again
//   POST   /api/import/homepage  [owner]  Homepage's services, bookmarks and widgets files, or their dry run
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
import { entityRoutes } from '../entities/routes.ts';
import { assertSpaceReadable, writeEnv } from '../entities/write.ts';
import { strongEtag } from '../icons/render.ts';
import { IconBytes } from '../icons/schema.ts';
import { sendIcon } from '../icons/serve.ts';
import { appHandler } from './entity.ts';
import { appFavicon, refreshFavicon } from './icon.ts';
import { importHomepage } from './import.ts';
import { appList, presentApp } from './present.ts';
import {
  App,
  AppList,
  AppListQuery,
  CreateApp,
  FaviconLook,
  HomepageImport,
  ImportReport,
  UpdateApp,
} from './schema.ts';
import { type AppRow, findApp } from './store.ts';
import { appTools } from './tools.ts';

const tags = ['apps'];

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/apps',
    {
      schema: {
        tags,
        summary: 'List apps by group, with the state of the service each follows',
        description:
          'Groups come in the order of their first app, apps by position. status is the linked service’s cached ' +
          'state (up, down, degraded, warning, pending), paused when it is disabled, unknown without one; latency_ms its last check.',
        querystring: AppListQuery,
        response: { 200: AppList, ...errors(400, 401, 403) },
      },
    },
    async (request) => appList(app.sql, request.query),
  );

  entityRoutes(app, {
    entity_type: 'app',
    path: '/apps',
    tags,
    entity: App,
    read: async (_request, id) => {
      const row = await findApp(app.sql, id);
      if (!row) throw hubError('APP_NOT_FOUND', id);
      return presentApp(row);
    },
    body: { create: CreateApp, update: UpdateApp },
    present: (entity) => presentApp(entity as AppRow),
    summary: {
      get: 'Get an app',
      create: 'Add an app (last in its group unless a position is given)',
      update: 'Edit an app, or move it to another group or position',
      delete: 'Delete an app (the rest of its group closes the gap)',
    },
  });
};

const iconRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/apps/:id/icon',
    {
      schema: {
        tags,
        summary: "The app's site icon (favicon) as PNG",
        description:
          'Looked for once, on the first read: the href page\'s <link rel="icon"> or apple-touch-icon, then ' +
          '/favicon.ico, through the guarded client (private addresses only as INGEST_ALLOW_PRIVATE lists them), ' +
          'checked by its bytes (SVG sanitised) and kept as PNG. 404 APP_ICON_NOT_FOUND when none was found.',
        params: IdParams,
        response: { ...IconBytes('image/png'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const look = await appFavicon(app.sql, app.config, request.params.id);
      if (!look) throw hubError('APP_NOT_FOUND', request.params.id);
      if (!look.found) throw hubError('APP_ICON_NOT_FOUND', request.params.id);
      return sendIcon(request, reply, { type: 'png', bytes: look.png, etag: strongEtag(look.png) });
    },
  );

  app.post(
    '/apps/:id/icon/refresh',
    {
      schema: {
        tags,
        summary: "Look for the app's favicon again",
        description: 'Answers whether one was found, and when not, why (each place tried with its outcome).',
        params: IdParams,
        response: { 200: FaviconLook, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const look = await refreshFavicon(app.sql, app.config, request.params.id);
      if (!look) throw hubError('APP_NOT_FOUND', request.params.id);
      return look.found
        ? { found: true, reason: null, icon_url: `/api/apps/${request.params.id}/icon` }
        : { found: false, reason: look.reason, icon_url: null };
    },
  );
};

const importRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/import/homepage',
    {
      schema: {
        tags,
        summary: "Import Homepage's services.yaml, bookmarks.yaml and widgets.yaml",
        description:
          'Services become apps in their groups (icons mapped: mdi-x to mdi:x, si-x and x.png to brand:x when the ' +
          'brand exists), siteMonitor a linked http check; bookmarks become refs in space_id (default Inbox) with ' +
          'their group as source; the openmeteo widget sets the weather place. Apps are matched by group and name, ' +
          'so importing again updates in place. With dry_run nothing is written. Malformed YAML is 400 ' +
          'IMPORT_YAML_INVALID with the file, line and column.',
        body: HomepageImport,
        response: { 200: ImportReport, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      if (request.body.space_id) await assertSpaceReadable(request, request.body.space_id);
      const principal = request.principal;
      if (!principal) throw hubError('UNAUTHORIZED');
      return importHomepage(app.sql, { ...writeEnv(app), config: app.config, principal }, request.body);
    },
  );
};

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(App);
  await app.register(agentAccess(routes));
  await app.register(ownerOnly(iconRoutes));
  await app.register(ownerOnly(importRoutes));
};

export default {
  name: 'apps',
  routes: plugin,
  entities: { app: appHandler },
  tools: appTools,
} satisfies HubModule;
