// Docker discovery: containers labelled for Homepage (homepage.*) or routed by Traefik (a router's Host rule) become
// app candidates, which the owner promotes to apps or dismisses. The `docker.sync` task reads them (on the schedule
// of the `docker_sync` setting, or on demand as an action); a promoted app's tile shows its container's state.
//   GET    /api/apps/discovered              [owner]  the candidates (?dismissed=true: the dismissed ones)
//   POST   /api/apps/discovered/:id/promote  [owner]  make an app of one
//   DELETE /api/apps/discovered/:id          [owner]  dismiss one (it stays dismissed across syncs)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { App } from '../apps/schema.ts';
import { writeEnv } from '../entities/write.ts';
import { iconUrl } from '../icons/icon-ref.ts';
import { dockerCron, dockerTasks } from './jobs.ts';
import { dismiss, promoteCandidate } from './promote.ts';
import { DiscoveredApp, DiscoveredList, DiscoveredQuery, dockerSyncTask } from './schema.ts';
import { dockerSyncSetting } from './setting.ts';
import { type CandidateRow, listCandidates } from './store.ts';

const tags = ['apps'];

const present = (row: CandidateRow): DiscoveredApp => ({ ...row, icon_url: iconUrl(row.icon) });

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(App);
  app.addSchema(DiscoveredApp);

  app.get(
    '/apps/discovered',
    {
      schema: {
        tags,
        summary: 'App candidates found in Docker containers’ labels',
        description:
          'Made by the docker.sync task (POST /api/actions/run {"action":"docker.sync"} runs it now) from ' +
          'homepage.* labels or a Traefik router’s Host rule. Promoted ones keep their app_id; dismissed ones are ' +
          'listed only with ?dismissed=true.',
        querystring: DiscoveredQuery,
        response: { 200: DiscoveredList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, offset, dismissed = false } = request.query;
      const { items, total } = await listCandidates(app.sql, { dismissed, limit, offset });
      return { items: items.map(present), total, limit, offset };
    },
  );

  app.post(
    '/apps/discovered/:id/promote',
    {
      schema: {
        tags,
        summary: 'Make an app of a candidate',
        description:
          'The app takes the candidate’s name, link, description, icon and group (last in its group); it is the ' +
          'owner’s from then on: later syncs update only its container’s state. 409 DISCOVERED_APP_PROMOTED when ' +
          'it was promoted already.',
        params: IdParams,
        response: { 201: Type.Ref('App'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (!principal) throw new Error('owner route without a principal');
      const created = await promoteCandidate(app.sql, { ...writeEnv(app), principal }, request.params.id);
      return reply.status(201).send(created);
    },
  );

  app.delete(
    '/apps/discovered/:id',
    {
      schema: {
        tags,
        summary: 'Dismiss a candidate',
        description:
          'It stays dismissed when later syncs find its container again; promoting it undoes this.',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await dismiss(app.sql, request.params.id);
      return reply.status(204).send(null);
    },
  );
};

export default {
  name: 'docker',
  routes: async (app) => app.register(ownerOnly(routes)),
  tasks: dockerTasks,
  cron: dockerCron,
  settings: [dockerSyncSetting],
  actions: [{ task: dockerSyncTask, defaults: { trigger: 'manual' } }],
} satisfies HubModule;
