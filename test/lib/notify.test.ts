// The environment target's request forms (ALERT_URL with ALERT_FORMAT): JSON by default with the token as a bearer,
// ntfy's publish form with non-ASCII titles encoded as RFC 2047 words.
import t from 'tap';
import { alertRequest } from '../../lib/notify.ts';

const alert = {
  event: 'service.down',
  title: 'NAS is down',
  message: 'HTTP 503',
  tags: ['red_circle'],
  data: { service: 'NAS' },
};

t.test('json: the alert and its data in one object, the token as a bearer', async (t) => {
  const at = new Date('2026-11-26T10:00:00Z');
  const request = alertRequest({ format: 'json', token: 'tk_abc' }, alert, at);
  t.same(request.headers, { 'content-type': 'application/json', authorization: 'Bearer tk_abc' });
  t.same(JSON.parse(request.body), {
    event: 'service.down',
    title: 'NAS is down',
    message: 'HTTP 503',
    tags: ['red_circle'],
    priority: 3,
    at: '2026-11-26T10:00:00.000Z',
    service: 'NAS',
  });
});

t.test('ntfy: the message as the body, title, tags and priority as headers', async (t) => {
  const request = alertRequest({ format: 'ntfy', token: null }, { ...alert, priority: 9 });
  t.same(request.headers, {
    'content-type': 'text/plain; charset=utf-8',
    title: 'NAS is down',
    priority: '5',
    tags: 'red_circle',
  });
  t.equal(request.body, 'HTTP 503');
  const encoded = alertRequest(
    { format: 'ntfy', token: null },
    { event: 'x', title: 'Küche is down', message: 'm' },
  );
  t.equal(encoded.headers.title, `=?UTF-8?B?${Buffer.from('Küche is down').toString('base64')}?=`);
});
