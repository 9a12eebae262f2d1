// Incidents the hub opens itself: a service down, a certificate expired, a backup failed, storage at ATTENTION, one
// per root cause, each with its page in the Incidents space (follow.ts, page.ts). Agents read them; the owner names,
// resolves and writes their resolution. The dashboard's `incidents` card lists the open ones.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
import { cronItem, runs } from '../../worker/contract.ts';
import { diagnoseIncident } from './diagnose.ts';
import { followTimeline } from './follow.ts';
import { changeIncident, incident, incidentList } from './incidents.ts';
import {
  Incident,
  IncidentPage,
  IncidentQuery,
  incidentsDiagnoseTask,
  incidentsFollowTask,
  UpdateIncident,
} from './schema.ts';
import { diagnosisAgentSetting } from './setting.ts';

const tags = ['incidents'];
const openOnCard = 20;

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Incident);

  app.cards.addSource({
    type: 'incidents',
    intervalMs: 30_000,
    read: () => incidentList(app.sql, { state: 'open', limit: openOnCard, offset: 0 }),
  });

  await app.register(
    agentAccess(async (agents) => {
      agents.get(
        '/incidents',
        {
          schema: {
            tags,
            summary: 'List incidents, open first, newest first',
            querystring: IncidentQuery,
            response: { 200: IncidentPage, ...errors(400, 401, 403) },
          },
        },
        async (request) => incidentList(agents.sql, request.query),
      );
      agents.get(
        '/incidents/:id',
        {
          schema: {
            tags,
            summary: 'Get an incident',
            params: IdParams,
            response: { 200: Type.Ref('Incident'), ...errors(400, 401, 403, 404) },
          },
        },
        async (request) => incident(agents.sql, request.params.id),
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.patch(
        '/incidents/:id',
        {
          schema: {
            tags,
            summary: 'Rename an incident, resolve it by hand, or write its resolution',
            description:
              'resolution replaces what is under the "Resolution" heading of the incident\'s page; the rest of the ' +
              'page is the hub\'s. state "resolved" closes an open incident now.',
            params: IdParams,
            body: UpdateIncident,
            response: { 200: Type.Ref('Incident'), ...errors(400, 401, 403, 404) },
          },
        },
        async (request) => {
          const changed = await changeIncident(owner.sql, request.params.id, request.body);
          app.cards.refresh('incidents');
          return changed;
        },
      );
    }),
  );
};

export default {
  name: 'incidents',
  routes: plugin,
  tasks: [
    runs(incidentsFollowTask, (deps) => async (_payload, helpers) => {
      const read = await followTimeline(deps.sql);
      if (read > 0) helpers.logger.info(`incidents.follow: ${read} events read`);
    }),
    runs(incidentsDiagnoseTask, (deps) => async (payload, helpers) => {
      await diagnoseIncident(deps, payload.incident_id, (message) => helpers.logger.info(message));
    }),
  ],
  settings: [diagnosisAgentSetting],
  // The safety net: events whose run was lost (a hub stopped before it ran) are read within the minute.
  cron: () => [
    cronItem({ id: 'incidents.follow', task: incidentsFollowTask, schedule: '* * * * *', payload: {} }),
  ],
} satisfies HubModule;
