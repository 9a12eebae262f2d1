// Alert targets: each kind delivers in its receiver's real shape (ntfy, Gotify, apprise-api, a Standard Webhooks
// consumer, an SMTP server), secrets are write-only and never in an answer, Test answers the upstream's status, and
// the environment's ALERT_URL is a target the API shows but never changes.
import t from 'tap';
import { raiseAlert } from '../../../domains/alerts/raise.ts';
import { testApp } from '../../helpers/app.ts';
import { until } from '../../helpers/process.ts';
import { startApprise, startGotify, startNtfy, startSmtp, startWebhookReceiver } from './receivers.ts';

const secrets = {
  ntfy: 'tk_ntfysecret0123456789abcdef',
  gotify: 'AgotifyAppToken42',
  webhook: `whsec_${Buffer.from('a webhook signing key of 32 bytes').toString('base64')}`,
  apprise: 'tgram://bottoken123456/chatid',
  smtp: 'smtp-password-never-shown',
};

const ntfy = await startNtfy(t, { token: secrets.ntfy });
const gotify = await startGotify(t, secrets.gotify);
const apprise = await startApprise(t);
const webhook = await startWebhookReceiver(t, secrets.webhook);
const smtp = await startSmtp(t, { user: 'hub@home.lan', password: secrets.smtp });
const environment = await startNtfy(t);

const ta = await testApp(t, {
  worker: true,
  env: { ALERT_URL: `${environment.url}/legacy-topic`, ALERT_FORMAT: 'ntfy' },
});

async function addTarget(body: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url: '/api/alerts/targets', payload: body });
  if (response.statusCode !== 201) throw new Error(`target refused: ${response.body}`);
  return response.json() as { id: string; fields: Record<string, unknown> };
}

const containsSecret = (text: string) => Object.values(secrets).some((secret) => text.includes(secret));

const targets = {
  ntfy: await addTarget({
    name: 'Phone',
    kind: 'ntfy',
    fields: { url: ntfy.url, topic: 'homelab', token: secrets.ntfy },
  }),
  gotify: await addTarget({
    name: 'Gotify',
    kind: 'gotify',
    fields: { url: `${gotify.url}/`, token: secrets.gotify },
  }),
  apprise: await addTarget({
    name: 'Apprise',
    kind: 'apprise',
    fields: { url: apprise.url, urls: secrets.apprise },
  }),
  webhook: await addTarget({
    name: 'Webhook',
    kind: 'webhook',
    fields: { url: `${webhook.url}/hooks/hub`, secret: secrets.webhook },
  }),
  email: await addTarget({
    name: 'Mail',
    kind: 'email',
    fields: {
      host: '127.0.0.1',
      port: smtp.port,
      tls: 'none',
      user: 'hub@home.lan',
      password: secrets.smtp,
      from: 'hub@home.lan',
      to: ['owner@home.lan'],
    },
  }),
};

t.test('targets are listed with secrets only as { set }, the environment one first', async (t) => {
  const list = await ta.asOwner({ method: 'GET', url: '/api/alerts/targets' });
  t.equal(list.statusCode, 200);
  t.notOk(containsSecret(list.body), 'no secret in the list');
  const items = list.json().items as {
    id: string;
    kind: string;
    source: string;
    fields: Record<string, unknown>;
  }[];
  t.match(items[0], {
    source: 'environment',
    kind: 'ntfy',
    fields: { url: `${environment.url}/legacy-topic` },
  });
  t.same(items.find((item) => item.id === targets.ntfy.id)?.fields, {
    url: ntfy.url,
    topic: 'homelab',
    token: { set: true },
  });
  t.match(items.find((item) => item.id === targets.email.id)?.fields, {
    password: { set: true },
    port: smtp.port,
  });
  const stored = await ta.sql<{ secrets: Record<string, string> }[]>`select secrets from alert_targets`;
  t.notOk(containsSecret(JSON.stringify(stored)), 'stored sealed, not in the clear');

  const envPatch = await ta.asOwner({
    method: 'PATCH',
    url: `/api/alerts/targets/${items[0].id}`,
    payload: { name: 'mine' },
  });
  t.equal(envPatch.statusCode, 409);
  t.equal(envPatch.json().code, 'SET_BY_ENVIRONMENT');
  t.equal((await ta.anon({ method: 'GET', url: '/api/alerts/targets' })).statusCode, 401);
});

t.test('bad target input is a 400 naming the field', async (t) => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ name: 'x', kind: 'gotify', fields: { url: gotify.url } }, /needs token/],
    [{ name: 'x', kind: 'apprise', fields: { url: apprise.url } }, /urls or a configuration key/],
    [{ name: 'x', kind: 'webhook', fields: { url: webhook.url, secret: 'plain' } }, /secret/],
    [{ name: 'x', kind: 'ntfy', fields: { url: 'ftp://x', topic: 'a' } }, /url/],
  ];
  for (const [body, message] of cases) {
    const response = await ta.asOwner({ method: 'POST', url: '/api/alerts/targets', payload: body });
    t.equal(response.statusCode, 400, JSON.stringify(body));
    t.match(response.json().message, message);
  }
  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/alerts/targets/${targets.gotify.id}`,
    payload: { fields: { token: null } },
  });
  t.equal(patched.statusCode, 400, 'a required secret cannot be cleared');
});

t.test('Test sends a test alert and answers the upstream', async (t) => {
  const tested = await ta.asOwner({ method: 'POST', url: `/api/alerts/targets/${targets.gotify.id}/test` });
  t.equal(tested.statusCode, 200);
  t.match(tested.json(), { ok: true, status: 200 });
  t.match(JSON.parse(gotify.requests.at(-1)?.body ?? '{}'), { title: 'Test alert from ops-hub' });

  // A wrong token: the upstream's 401 and its reason, never ours.
  const broken = await addTarget({
    name: 'Old',
    kind: 'gotify',
    fields: { url: gotify.url, token: 'wrong' },
  });
  const refused = await ta.asOwner({ method: 'POST', url: `/api/alerts/targets/${broken.id}/test` });
  t.equal(refused.statusCode, 200);
  t.match(refused.json(), { ok: false, status: 401, answer: /HTTP 401.*valid access token/ });
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/alerts/targets/${broken.id}` })).statusCode, 204);

  const mail = await ta.asOwner({ method: 'POST', url: `/api/alerts/targets/${targets.email.id}/test` });
  t.match(mail.json(), { ok: true, status: 250 });
  t.equal(smtp.mails.length, 1);
  t.equal(smtp.mails[0].user, 'hub@home.lan', 'logged in');
});

t.test('one alert reaches every kind in its real shape', async (t) => {
  const setting = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/alerts',
    payload: { value: { web_url: 'https://hub.home.lan/' } },
  });
  t.equal(setting.statusCode, 200);
  const before = { ntfy: ntfy.requests.length, gotify: gotify.requests.length, mails: smtp.mails.length };
  const raised = await raiseAlert(
    ta.sql,
    { config: ta.config },
    {
      event: 'approval.waiting',
      title: 'Agent wants to delete a page, oui',
      message: 'The **research** agent proposes: delete page *Notes*',
      tags: ['raising_hand'],
      priority: 4,
      link: '/approvals',
      data: { pending_change_id: 'abc' },
      actions: [
        { action: 'http', label: 'Approve', url: 'https://hub.home.lan/api/approvals/tok1', method: 'POST' },
        {
          action: 'http',
          label: 'Reject, please',
          url: 'https://hub.home.lan/api/approvals/tok2',
          body: '{"decision":"reject"}',
        },
      ],
    },
  );
  t.equal(raised.queued, 6, 'the default rule: every target, the environment one included');
  await until('every delivery sent', async () => {
    const list = await ta.asOwner({ method: 'GET', url: `/api/alerts/deliveries?alert_id=${raised.id}` });
    const items = list.json().items as { status: string }[];
    return items.length === 6 && items.every((item) => item.status === 'sent') ? list : undefined;
  });

  const published = ntfy.requests[before.ntfy];
  t.equal(published.url, '/homelab');
  t.equal(published.headers.authorization, `Bearer ${secrets.ntfy}`);
  t.equal(published.headers.title, 'Agent wants to delete a page, oui');
  t.equal(published.headers.priority, '4');
  t.equal(published.headers.tags, 'raising_hand');
  t.equal(published.headers.markdown, 'yes');
  t.equal(published.headers.click, 'https://hub.home.lan/approvals');
  t.equal(
    published.headers.actions,
    'http, Approve, https://hub.home.lan/api/approvals/tok1, method=POST, clear=true; ' +
      'http, "Reject, please", https://hub.home.lan/api/approvals/tok2, method=POST, ' +
      `body='{"decision":"reject"}', clear=true`,
  );
  t.equal(published.body, 'The **research** agent proposes: delete page *Notes*');

  const message = JSON.parse(gotify.requests[before.gotify].body);
  t.same(message, {
    title: 'Agent wants to delete a page, oui',
    message: 'The **research** agent proposes: delete page *Notes*',
    priority: 8,
    extras: {
      'client::display': { contentType: 'text/markdown' },
      'client::notification': { click: { url: 'https://hub.home.lan/approvals' } },
    },
  });

  const notified = apprise.requests.at(-1);
  t.equal(notified?.url, '/notify');
  t.same(JSON.parse(notified?.body ?? '{}'), {
    urls: secrets.apprise,
    title: 'Agent wants to delete a page, oui',
    body: 'The **research** agent proposes: delete page *Notes*\n\nhttps://hub.home.lan/approvals',
    type: 'warning',
    format: 'markdown',
  });

  t.equal(webhook.verified.length, 1, 'the signature verified with the reference library');
  t.match(webhook.verified[0], {
    type: 'approval.waiting',
    data: {
      alert_id: raised.id,
      priority: 4,
      link: 'https://hub.home.lan/approvals',
      pending_change_id: 'abc',
    },
  });
  const hook = webhook.requests.at(-1);
  t.match(hook?.headers['webhook-id'], /^msg_/);
  t.match(hook?.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);

  t.equal(smtp.mails.length, before.mails + 1);
  const mail = smtp.mails.at(-1);
  t.same(mail?.to, ['owner@home.lan']);
  t.match(mail?.data, /Subject: Agent wants to delete a page, oui/);
  t.match(mail?.data, /https:\/\/hub\.home\.lan\/approvals/);

  const legacy = environment.requests.at(-1);
  t.equal(legacy?.url, '/legacy-topic', 'ALERT_URL still receives alerts');
  t.equal(legacy?.headers.title, 'Agent wants to delete a page, oui');

  const deliveries = await ta.asOwner({ method: 'GET', url: '/api/alerts/deliveries?limit=100' });
  t.notOk(containsSecret(deliveries.body), 'no secret in the deliveries');
  const gotifyDelivery = (
    deliveries.json().items as { target_id: string; answer_status: number; answer: string }[]
  ).find((item) => item.target_id === targets.gotify.id);
  t.equal(gotifyDelivery?.answer_status, 200);
  t.match(gotifyDelivery?.answer, /"appid":1/, "the target's answer is kept");
});

t.test('a webhook with a wrong secret does not verify; the receiver says why', async (t) => {
  const wrong = await addTarget({
    name: 'Wrong key',
    kind: 'webhook',
    fields: { url: webhook.url, secret: `whsec_${Buffer.from('another key entirely').toString('base64')}` },
  });
  const tested = await ta.asOwner({ method: 'POST', url: `/api/alerts/targets/${wrong.id}/test` });
  t.match(tested.json(), { ok: false, status: 401 });
  t.notOk(containsSecret(tested.body));
  await ta.asOwner({ method: 'DELETE', url: `/api/alerts/targets/${wrong.id}` });
});

t.test('changing a target keeps the secrets left out and clears one sent as null', async (t) => {
  const renamed = await ta.asOwner({
    method: 'PATCH',
    url: `/api/alerts/targets/${targets.ntfy.id}`,
    payload: { name: 'Phone (ntfy)', fields: { topic: 'alerts' } },
  });
  t.equal(renamed.statusCode, 200);
  t.match(renamed.json(), { name: 'Phone (ntfy)', fields: { topic: 'alerts', token: { set: true } } });
  const tested = await ta.asOwner({ method: 'POST', url: `/api/alerts/targets/${targets.ntfy.id}/test` });
  t.match(tested.json(), { ok: true, status: 200 }, 'the kept token still works');
  t.equal(ntfy.requests.at(-1)?.url, '/alerts');

  const cleared = await ta.asOwner({
    method: 'PATCH',
    url: `/api/alerts/targets/${targets.ntfy.id}`,
    payload: { fields: { token: null } },
  });
  t.match(cleared.json(), { fields: { token: { set: false } } });
  const refused = await ta.asOwner({ method: 'POST', url: `/api/alerts/targets/${targets.ntfy.id}/test` });
  t.match(refused.json(), { ok: false, status: 401 });
});
