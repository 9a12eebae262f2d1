// Access, derived from the app's own route table (app.routeAccess(), filled as routes register), never from a list
// kept here: a route another domain adds later is held to the same rules without touching this file.
//   - the routes registered public are exactly `publicRoutes`, those open to agents exactly `agentRoutes` (and the
//     README lists the latter), so opening a route is always a change to a committed list;
//   - every other route answers 401 UNAUTHORIZED without credentials and with a wrong token;
//   - every owner-only route answers 403 OWNER_ONLY to an agent of each tier;
//   - every write open to agents (not GET, not readOnly) answers 403 TIER_CANNOT_WRITE to a read-tier agent.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { agentRoutes, publicRoutes, type RouteAccess } from '../plugins/auth.ts';
import { createAgent, type TestApp, testApp } from './helpers/app.ts';
import { repoRoot } from './helpers/process.ts';
import { fillPath } from './helpers/routes.ts';

// Every route is sent wrong tokens here: the per-address failure limit would answer 429 after the tenth.
const ta = await testApp(t, { env: { AGENT_RATE_LIMIT: '100000', AUTH_FAILURE_LIMIT: '1000000' } });
const table = ta.app.routeAccess();
// Fastify registers the trailing-slash twin of a prefix's root route ('/api/docs/') without calling onRoute; the
// router knows it, with the options (and so the access) of the route it copies.
const twins = table
  .filter((route) => !route.url.endsWith('/') && !route.url.includes('*'))
  .filter((route) => ta.app.hasRoute({ method: route.method as 'GET', url: `${route.url}/` }))
  .map((route) => ({ ...route, url: `${route.url}/` }));
const routes = [...table, ...twins].filter((route) => route.method !== 'HEAD' && route.method !== 'OPTIONS');
const key = (route: RouteAccess) => `${route.method} ${route.url}`;

function request(route: RouteAccess) {
  return { method: route.method as 'GET', url: fillPath(route.url) };
}

/** What a refusal says: its status and catalogued code. */
function refusal(response: Awaited<ReturnType<TestApp['anon']>>) {
  return { status: response.statusCode, code: response.json().code };
}

t.test('the table holds every domain and each route once per method', async (t) => {
  t.ok(routes.length > 60, `${routes.length} routes`);
  t.equal(new Set(routes.map(key)).size, routes.length, 'no route is listed twice');
  for (const path of ['/api/spaces', '/api/pages/:id', '/api/jobs', '/api/mcp', '/api/theme']) {
    t.ok(
      routes.some((route) => route.url === path),
      `${path} is in the table`,
    );
  }
});

t.test('the routes registered public are exactly publicRoutes', async (t) => {
  const registered = routes.filter((route) => route.access === 'public').map(key);
  t.same([...registered].sort(), [...publicRoutes].sort());
});

t.test(
  "the routes registered open to agents are exactly agentRoutes; every other route is the owner's",
  async (t) => {
    const registered = routes.filter((route) => route.access === 'agentOrOwner').map(key);
    t.same([...registered].sort(), [...agentRoutes].sort());
    t.equal(new Set(agentRoutes).size, agentRoutes.length, 'no route is listed twice');
    const others = routes.filter((route) => route.access !== 'public' && route.access !== 'agentOrOwner');
    t.same(new Set(others.map((route) => route.access)), new Set(['owner']), 'the rest are owner-only');
  },
);

t.test('README lists exactly the routes open to agents', async (t) => {
  const readme = await readFile(path.join(repoRoot, 'README.md'), 'utf8');
  const section = /<!-- agent routes -->\n([\s\S]*?)<!-- \/agent routes -->/.exec(readme)?.[1] ?? '';
  const listed = [...section.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`]*)`/g)].map(
    ([, method, url]) => `${method} ${url}`,
  );
  t.ok(listed.length > 0, 'README has the list between its markers');
  t.same([...listed].sort(), [...agentRoutes].sort());
});

t.test(
  'every route outside the public list answers 401 without credentials or with a wrong token',
  async (t) => {
    const guarded = routes.filter((route) => route.access !== 'public');
    t.ok(guarded.length > 50);
    for (const route of guarded) {
      const anonymous = await ta.anon(request(route));
      t.same(refusal(anonymous), { status: 401, code: 'UNAUTHORIZED' }, `anonymous ${key(route)}`);
      for (const token of ['not-a-token', 'hub_agent_0000000000000000000000000000']) {
        const wrong = await ta.asAgent(token, request(route));
        t.same(refusal(wrong), { status: 401, code: 'UNAUTHORIZED' }, `wrong token ${key(route)}`);
        t.equal(wrong.json().message, 'invalid credentials');
      }
    }
  },
);

t.test('every owner-only route answers 403 OWNER_ONLY to an agent of each tier', async (t) => {
  const ownerOnly = routes.filter((route) => route.access === 'owner');
  t.ok(ownerOnly.length > 20, `${ownerOnly.length} owner-only routes`);
  for (const tier of ['read', 'suggest', 'owner'] as const) {
    const agent = await createAgent(ta, { tier });
    for (const route of ownerOnly) {
      const response = await ta.asAgent(agent.token, request(route));
      t.same(refusal(response), { status: 403, code: 'OWNER_ONLY' }, `${tier}-tier agent: ${key(route)}`);
    }
  }
});

t.test('every write open to agents answers 403 TIER_CANNOT_WRITE to a read-tier agent', async (t) => {
  const writes = routes.filter(
    (route) => route.access === 'agentOrOwner' && route.method !== 'GET' && !route.readOnly,
  );
  t.ok(writes.length > 15, `${writes.length} writes`);
  const reader = await createAgent(ta, { tier: 'read' });
  for (const route of writes) {
    const response = await ta.asAgent(reader.token, { ...request(route), payload: {} });
    t.same(refusal(response), { status: 403, code: 'TIER_CANNOT_WRITE' }, `read-tier agent: ${key(route)}`);
  }
  const owner = await createAgent(ta, { tier: 'read' });
  const mcp = await ta.asAgent(owner.token, {
    method: 'POST',
    url: '/api/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  t.equal(mcp.statusCode, 200, 'a readOnly write (the tool protocol) stays open to a read-tier agent');
});
