// Network hosts: the owner's inventory, read by agents.
import t from 'tap';
import { createAgent, testApp } from '../helpers/app.ts';

t.test('network hosts: owner CRUD, agents read', async (t) => {
  const ta = await testApp(t);
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/network-hosts',
    payload: { hostname: 'pve1.lan', ip: '192.168.1.10', role: 'hypervisor', os: 'Proxmox VE 9' },
  });
  t.equal(created.statusCode, 201);
  t.match(created.json(), {
    hostname: 'pve1.lan',
    ip: '192.168.1.10',
    role: 'hypervisor',
    last_seen_at: null,
  });
  const id = created.json().id;
  const v6 = await ta.asOwner({
    method: 'POST',
    url: '/api/network-hosts',
    payload: { hostname: 'nas', ip: 'fd00::2', role: 'storage' },
  });
  t.equal(v6.json().ip, 'fd00::2');
  t.equal(
    (await ta.asOwner({ method: 'POST', url: '/api/network-hosts', payload: { hostname: 'PVE1.lan' } }))
      .statusCode,
    409,
    'hostnames are unique regardless of case',
  );
  t.equal(
    (
      await ta.asOwner({
        method: 'POST',
        url: '/api/network-hosts',
        payload: { hostname: 'x', ip: '300.1.1.1' },
      })
    ).statusCode,
    400,
  );
  t.equal(
    (await ta.asOwner({ method: 'POST', url: '/api/network-hosts', payload: { hostname: 'bad host!' } }))
      .statusCode,
    400,
  );
  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/network-hosts/${id}`,
    payload: { last_seen_at: '2030-05-06T07:08:09.000Z', ip: null },
  });
  t.match(patched.json(), { last_seen_at: '2030-05-06T07:08:09.000Z', ip: null });

  const storage = await ta.asOwner({ method: 'GET', url: '/api/network-hosts?role=storage' });
  t.same(
    storage.json().items.map((h: { hostname: string }) => h.hostname),
    ['nas'],
  );
  const agent = await createAgent(ta, { tier: 'read' });
  const list = await ta.asAgent(agent.token, { method: 'GET', url: '/api/network-hosts' });
  t.same(
    list.json().items.map((h: { hostname: string }) => h.hostname),
    ['nas', 'pve1.lan'],
  );
  t.equal(
    (await ta.asAgent(agent.token, { method: 'GET', url: `/api/network-hosts/${id}` })).statusCode,
    200,
  );
  const owningAgent = await createAgent(ta, { tier: 'owner' });
  t.equal(
    (
      await ta.asAgent(owningAgent.token, {
        method: 'POST',
        url: '/api/network-hosts',
        payload: { hostname: 'x' },
      })
    ).statusCode,
    403,
  );
  t.equal(
    (await ta.asAgent(owningAgent.token, { method: 'DELETE', url: `/api/network-hosts/${id}` })).statusCode,
    403,
  );
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/network-hosts/${id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/network-hosts/${id}` })).statusCode, 404);
});
