// The owner's downstream MCP servers: saved with their tools listed by the SDK's client (an unreachable one kept,
// disabled, with the reason), headers write-only and sealed under the hub's key (covered by the start-up key check
// and the key rotation), names unique, owner only.

import t from 'tap';
import { checkSecretKey, resealSecrets, SecretKeyError } from '../../../domains/integrations/keyring.ts';
import { newSecretKey, openSecret } from '../../../lib/secrets.ts';
import { hub } from '../../../modules.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { startDownstream } from '../../helpers/mcp-downstream.ts';

t.test('saving, changing, refreshing and forgetting a downstream server', async (t) => {
  const ta = await testApp(t);
  const vault = await startDownstream(t, { bearer: 'vault-secret-token' });

  const withoutHeader = await ta.asOwner({
    method: 'POST',
    url: '/api/mcp-servers',
    payload: { name: 'vault', url: vault.url },
  });
  t.equal(withoutHeader.statusCode, 201, 'an unreachable server is still saved');
  t.match(withoutHeader.json(), { enabled: false, tool_count: 0, last_error: /vault: .*401/ });
  const id = withoutHeader.json().id;

  const duplicate = await ta.asOwner({
    method: 'POST',
    url: '/api/mcp-servers',
    payload: { name: 'vault', url: vault.url },
  });
  t.match(
    { status: duplicate.statusCode, ...duplicate.json() },
    { status: 409, code: 'MCP_SERVER_NAME_TAKEN' },
  );

  for (const payload of [
    { name: 'Vault', url: vault.url },
    { name: 'va.ult', url: vault.url },
    { name: 'vault2', url: 'ftp://127.0.0.1/mcp' },
    { name: 'vault2', url: vault.url, headers: { 'X-Evil': 'a\r\nb' } },
    { name: 'vault2', url: vault.url, tool_policy: { x: 'maybe' } },
  ]) {
    const refused = await ta.asOwner({ method: 'POST', url: '/api/mcp-servers', payload });
    t.equal(refused.statusCode, 400, JSON.stringify(payload));
  }

  const fixed = await ta.asOwner({
    method: 'PATCH',
    url: `/api/mcp-servers/${id}`,
    payload: { headers: { Authorization: 'Bearer vault-secret-token' }, enabled: true },
  });
  t.equal(fixed.statusCode, 200, fixed.body);
  t.match(fixed.json(), {
    enabled: true,
    tool_count: 4,
    last_error: null,
    headers: { Authorization: { set: true } },
  });
  t.equal(vault.headers.at(-1)?.authorization, 'Bearer vault-secret-token');
  t.notMatch(fixed.body, 'vault-secret-token');

  const kept = await ta.asOwner({
    method: 'PATCH',
    url: `/api/mcp-servers/${id}`,
    payload: { timeout_ms: 5000 },
  });
  t.same(kept.json().headers, { Authorization: { set: true } }, 'a header left out is kept');
  t.equal(kept.json().enabled, true, 'and still opens the server');

  const refreshed = await ta.asOwner({ method: 'POST', url: `/api/mcp-servers/${id}/refresh` });
  t.match(refreshed.json(), { enabled: true, tool_count: 4 });

  const cleared = await ta.asOwner({
    method: 'PATCH',
    url: `/api/mcp-servers/${id}`,
    payload: { headers: { authorization: null } },
  });
  t.same(cleared.json().headers, {}, 'null clears a header, whatever its case');
  t.match(cleared.json(), { enabled: false, last_error: /401/ }, 'and without it the server refuses the hub');

  const listed = await ta.asOwner({ method: 'GET', url: '/api/mcp-servers' });
  t.same(
    listed.json().items.map((server: { name: string }) => server.name),
    ['vault'],
  );
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/mcp-servers/${id}` })).json().name, 'vault');

  const agent = await createAgent(ta, { tier: 'owner' });
  for (const [method, url] of [
    ['GET', '/api/mcp-servers'],
    ['GET', `/api/mcp-servers/${id}/tools`],
    ['POST', `/api/mcp-servers/${id}/refresh`],
  ] as const) {
    t.equal(
      (await ta.asAgent(agent.token, { method, url })).statusCode,
      403,
      `${method} ${url} is the owner's`,
    );
  }

  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/mcp-servers/${id}` })).statusCode, 204);
  const gone = await ta.asOwner({ method: 'GET', url: `/api/mcp-servers/${id}/tools` });
  t.match({ status: gone.statusCode, ...gone.json() }, { status: 404, code: 'MCP_SERVER_NOT_FOUND' });
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/mcp-servers/${id}` })).statusCode, 404);
});

t.test('headers are covered by the start-up key check and the key rotation', async (t) => {
  const ta = await testApp(t);
  const vault = await startDownstream(t, { bearer: 'vault-secret-token' });
  const saved = await ta.asOwner({
    method: 'POST',
    url: '/api/mcp-servers',
    payload: { name: 'vault', url: vault.url, headers: { Authorization: 'Bearer vault-secret-token' } },
  });
  const id = saved.json().id;

  const wrong = await checkSecretKey(
    ta.sql,
    { dataDir: ta.dataDir, secretKey: newSecretKey() },
    hub.sealed,
  ).catch((e) => e);
  t.type(wrong, SecretKeyError);
  t.match(wrong.message, `mcp.header:${id}:authorization`);

  const { key } = await checkSecretKey(ta.sql, { dataDir: ta.dataDir, secretKey: null }, hub.sealed);
  const next = newSecretKey();
  t.equal(await resealSecrets(ta.sql, key, next, hub.sealed), 1);
  const [row] = await ta.sql`select headers from mcp_servers where id = ${id}`;
  t.equal(
    openSecret(next, { kind: 'mcp', field: `header:${id}:authorization` }, row.headers.Authorization),
    'Bearer vault-secret-token',
  );
  t.ok(
    await checkSecretKey(ta.sql, { dataDir: ta.dataDir, secretKey: next }, hub.sealed),
    'the new key opens it',
  );
});
