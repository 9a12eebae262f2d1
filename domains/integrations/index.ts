// Integrations: the upstreams (weather, Proxmox, Shlink, speech to text, the assistant's endpoint, linkding, the
// Karakeep webhook, the Docker Engine API) configured from the browser, tested before they are saved, used at once.
// The owner's only.
//   GET    /api/integrations              every kind: source, fields (secrets as { set }), last test; then one
//                                        alert-target entry per alert target (managed under /api/alerts/targets)
//   PUT    /api/integrations/:kind        one route per kind (weather, proxmox, shlink, stt, assistant, linkding,
//                                        karakeep, docker): test the upstream (unless ?test=false), then store
//   POST   /api/integrations/:kind/test   one route per kind: test the given or the stored settings, saving nothing
//   DELETE /api/integrations/:kind        remove the stored settings
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, NoContent } from '../../lib/schemas.ts';
import { compiledOnUse } from '../../lib/typebox.ts';
import type { HubModule } from '../../module.ts';
import { integrationSecrets } from './keyring.ts';
import { listIntegrations, saveIntegration, testIntegration } from './manage.ts';
import {
  Integration,
  IntegrationList,
  integrationKinds,
  KindParams,
  kinds,
  SaveQuery,
  TestResult,
} from './schema.ts';
import { deleteIntegrationRow } from './store.ts';

const tags = ['integrations'];

/** The dashboard cards each integration feeds: refreshed at once when it changes. */
const cardsOf: Partial<Record<(typeof integrationKinds)[number], string[]>> = {
  weather: ['weather'],
  proxmox: ['cluster', 'storage'],
};

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(TestResult);
  app.addSchema(Integration);
  const deps = { sql: app.sql, config: app.config };
  const changed = (kind: (typeof integrationKinds)[number]) => {
    for (const card of cardsOf[kind] ?? []) app.cards.refresh(card);
  };

  app.get(
    '/integrations',
    {
      schema: {
        tags,
        summary: 'Every integration: where it is set, its fields (secrets only as { set }) and its last test',
        description:
          'After the kinds, one alert-target entry per alert target (id, source: environment for ALERT_URL, ' +
          'fields with target_kind and enabled); they are changed under /api/alerts/targets.',
        response: { 200: IntegrationList, ...errors(401, 403) },
      },
    },
    async () => ({ items: await listIntegrations(deps) }),
  );

  for (const kind of integrationKinds) {
    const { fields, title } = kinds[kind];
    const check = compiledOnUse(fields);
    app.put(
      `/integrations/${kind}`,
      {
        schema: {
          tags,
          summary: `Configure ${title}`,
          description:
            'Tests the upstream once first (unless ?test=false): a failure is 422 INTEGRATION_TEST_FAILED with ' +
            'the outcome in `test`, and nothing is stored. A secret left out keeps the stored one; null clears it. ' +
            'Set by the environment: 409 SET_BY_ENVIRONMENT naming the variable.',
          querystring: SaveQuery,
          body: fields,
          response: { 200: Type.Ref('Integration'), ...errors(400, 401, 403, 409, 422) },
        },
      },
      async (request) => {
        const saved = await saveIntegration(deps, kind, request.body as Record<string, unknown>, {
          test: request.query.test,
        });
        changed(kind);
        return saved;
      },
    );

    app.post(
      `/integrations/${kind}/test`,
      {
        schema: {
          tags,
          summary: `Test ${title} without saving`,
          description:
            'With a body: those settings (stored secrets fill in the ones left out). Without: the settings in force ' +
            '(environment or stored; 404 INTEGRATION_NOT_CONFIGURED when neither). A failing upstream is ok: false ' +
            'with its status or the connection error.',
          // Documented, and checked below: a test without a body is allowed (Fastify would refuse it).
          requestBody: { 'application/json': fields },
          response: { 200: Type.Ref('IntegrationTest'), ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const body = request.body ?? undefined;
        if (body !== undefined && !check().Check(body)) {
          const [first] = check().Errors(body);
          const where = first?.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : 'body';
          throw hubError('VALIDATION_FAILED', `${where} ${first?.message ?? 'does not fit the schema'}`);
        }
        return testIntegration(deps, kind, body as Record<string, unknown> | undefined);
      },
    );
  }

  app.delete(
    '/integrations/:kind',
    {
      schema: {
        tags,
        summary:
          'Remove the stored settings of an integration (the environment, when it sets one, still does)',
        params: KindParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { kind } = request.params;
      if (!(await deleteIntegrationRow(app.sql, kind))) throw hubError('INTEGRATION_NOT_CONFIGURED', kind);
      changed(kind);
      return reply.status(204).send(null);
    },
  );
};

export default { name: 'integrations', routes: plugin, sealed: [integrationSecrets] } satisfies HubModule;
