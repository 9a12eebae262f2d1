// GET /api/integrations lists the alert targets after the integration kinds, one entry each: ALERT_URL as
// source "environment" naming its variables, a stored target as "settings"; secrets only as { set }.
import t from 'tap';
import { environmentTargetId } from '../../../domains/alerts/targets.ts';
import { testApp } from '../../helpers/app.ts';

const token = 'tk_phone-token-0123456789abcdef';

t.test('every alert target is an entry of the integrations list', async (t) => {
  const ta = await testApp(t, {
    env: { ALERT_URL: 'http://127.0.0.1:9/alerts', ALERT_TOKEN: 'env-token-42' },
  });
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/alerts/targets',
    payload: { kind: 'ntfy', name: 'Phone', fields: { url: 'http://127.0.0.1:9', topic: 'hub', token } },
  });
  t.equal(created.statusCode, 201, created.body);
  const response = await ta.asOwner({ method: 'GET', url: '/api/integrations' });
  t.equal(response.statusCode, 200);
  t.notOk(response.body.includes(token), 'no secret in the answer');
  t.notOk(response.body.includes('env-token-42'));
  const items = response.json().items as { kind: string; [field: string]: unknown }[];
  t.equal(items[0].kind, 'weather', 'the integration kinds first');
  const targets = items.filter((item) => item.kind === 'alert-target');
  t.match(targets, [
    {
      id: environmentTargetId,
      title: 'Alert target: ALERT_URL (environment)',
      configured: true,
      source: 'environment',
      variables: ['ALERT_URL', 'ALERT_FORMAT', 'ALERT_TOKEN'],
      fields: { target_kind: 'json', url: 'http://127.0.0.1:9/alerts', token: { set: true } },
      secrets: ['token'],
      last_test: null,
    },
    {
      id: created.json().id,
      title: 'Alert target: Phone',
      configured: true,
      source: 'settings',
      variables: [],
      fields: {
        target_kind: 'ntfy',
        enabled: true,
        url: 'http://127.0.0.1:9',
        topic: 'hub',
        token: { set: true },
      },
      secrets: ['token'],
      last_test: null,
    },
  ]);
  t.equal(targets.length, 2);

  await ta.asOwner({
    method: 'PATCH',
    url: `/api/alerts/targets/${created.json().id}`,
    payload: { enabled: false },
  });
  const after = (await ta.asOwner({ method: 'GET', url: '/api/integrations' })).json().items;
  t.match(
    after.find((item: { id?: string }) => item.id === created.json().id),
    {
      configured: false,
      fields: { enabled: false },
    },
  );
});
