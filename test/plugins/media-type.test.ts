// A write the browser authenticates by itself must be JSON (or multipart where the route takes a file): the bodies
// an HTML form can send (text/plain, urlencoded, multipart) are 415 on every route, so a form planted in a page and
// clicked by the signed-in owner cannot approve an agent's proposal. Bearer-token clients are not affected.
import t from 'tap';
import { createAgent, createSpace, ownerToken, testApp } from '../helpers/app.ts';

const ta = await testApp(t);
const space = await createSpace(ta, 'Home');
const scribe = await createAgent(ta, { name: 'scribe', tier: 'suggest' });

const signedIn = await ta.anon({ method: 'POST', url: '/api/session', payload: { token: ownerToken } });
const cookie = signedIn.cookies.find((c) => c.name === 'hub_session');
// The hub's own Origin: the planted form is on the hub's page, so the Origin check lets it through.
const browser = {
  cookie: `hub_session=${cookie?.value}`,
  origin: 'http://localhost:80',
  host: 'localhost:80',
};

async function proposal(title: string): Promise<string> {
  const proposed = await ta.asAgent(scribe.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title, body: 'proposed' },
  });
  t.equal(proposed.statusCode, 202);
  return proposed.json().pending_change_id;
}

const statusOf = async (id: string) =>
  (await ta.sql`select status from pending_changes where id = ${id}`)[0]?.status;

t.test('the planted approve form is refused, whatever its enctype', async (t) => {
  const id = await proposal('Planted');
  const url = `/api/pending-changes/${id}/approve`;
  const forms: Record<string, string>[] = [
    // <form method=post enctype=text/plain><button>: an empty body, and a Content-Type all the same.
    { 'content-type': 'text/plain', 'content-length': '0' },
    { 'content-type': 'text/plain;charset=UTF-8', payload: 'a=b' },
    { 'content-type': 'application/x-www-form-urlencoded', payload: 'reason=ok' },
    {
      'content-type': 'multipart/form-data; boundary=x',
      payload: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n',
    },
  ];
  for (const { payload, ...headers } of forms) {
    const response = await ta.anon({ method: 'POST', url, headers: { ...browser, ...headers }, payload });
    t.equal(response.statusCode, 415, headers['content-type']);
    t.equal(response.json().code, 'UNSUPPORTED_MEDIA_TYPE');
    t.match(response.json().message, /must be sent as application\/json/);
  }
  t.equal(await statusOf(id), 'pending', 'the proposal is still waiting');

  // What the app sends: no body and no Content-Type.
  const approved = await ta.anon({ method: 'POST', url, headers: browser });
  t.equal(approved.statusCode, 200, approved.body);
  t.equal(await statusOf(id), 'applied');
});

t.test('routes with a body schema refuse form bodies too; JSON passes', async (t) => {
  const refused = await ta.anon({
    method: 'POST',
    url: '/api/spaces',
    headers: { ...browser, 'content-type': 'text/plain' },
    payload: JSON.stringify({ name: 'From a form' }),
  });
  t.equal(refused.statusCode, 415);
  const sneaky = await ta.anon({
    method: 'PATCH',
    url: `/api/spaces/${space.id}`,
    headers: { ...browser, 'content-type': 'application/x-json-but-not' },
    payload: JSON.stringify({ name: 'Renamed' }),
  });
  t.equal(sneaky.statusCode, 415);
  const bodyWithoutType = await ta.anon({
    method: 'POST',
    url: '/api/spaces',
    headers: { ...browser, 'content-length': '2' },
    payload: '{}',
  });
  t.equal(bodyWithoutType.statusCode, 415, 'a body without a Content-Type is refused');
  t.same(await ta.sql`select name from spaces where name in ('From a form', 'Renamed')`, []);
  const json = await ta.anon({
    method: 'POST',
    url: '/api/spaces',
    headers: { ...browser, 'content-type': 'application/json; charset=utf-8' },
    payload: JSON.stringify({ name: 'From the app' }),
  });
  t.equal(json.statusCode, 201);
});

t.test('multipart only where the route takes a file', async (t) => {
  const form = new FormData();
  form.append('space_id', space.id);
  form.append('file', new Blob(['# Notes\n\nplain text'], { type: 'text/markdown' }), 'notes.md');
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  const body = Buffer.from(await request.arrayBuffer());
  const headers = { ...browser, 'content-type': request.headers.get('content-type') ?? '' };
  const upload = await ta.anon({ method: 'POST', url: '/api/capture/upload', headers, payload: body });
  t.equal(upload.statusCode, 201, upload.body);
  const elsewhere = await ta.anon({ method: 'POST', url: '/api/spaces', headers, payload: body });
  t.equal(elsewhere.statusCode, 415);
  t.match(elsewhere.json().message, /as application\/json \(/, 'names only what this route takes');
});

t.test('bearer-token clients (scripts, agents) are not held to it', async (t) => {
  const id = await proposal('Scripted');
  const response = await ta.asOwner({
    method: 'POST',
    url: `/api/pending-changes/${id}/approve`,
    headers: { 'content-type': 'text/plain' },
    payload: '',
  });
  t.equal(response.statusCode, 200);
  t.equal(await statusOf(id), 'applied');
});
