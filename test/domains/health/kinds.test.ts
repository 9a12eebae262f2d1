// ping, dns and the richer http check against real things on loopback: the system's ping to 127.0.0.1 (up) and a
// fake ping program (HEALTH_PING_COMMAND, a real child process printing like iputils) for a host that gives no reply
// in time, since every 127.0.0.0/8 address answers here; a DNS server on 127.0.0.1 built with dns-packet answering
// over UDP and TCP (an answer, NXDOMAIN, SERVFAIL, and a truncated UDP answer retried over TCP); json_query, method,
// headers and body; slow_ms making a service degraded (up for uptime, an event, a service.degraded alert).
import dgram from 'node:dgram';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import t from 'tap';
import { checkServices } from '../../../domains/health/jobs.ts';
import { testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

const bigTxt = Array.from({ length: 40 }, (_, i) => `record ${i} ${'x'.repeat(40)}`);

/** The answer to one question: the zone of the test's DNS server. */
function answer(query: dnsPacket.Packet, transport: 'udp' | 'tcp'): Buffer {
  const [question] = query.questions ?? [];
  const reply = (rcode: number, answers: dnsPacket.Answer[] = [], truncated = false) =>
    dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags:
        dnsPacket.RECURSION_DESIRED |
        dnsPacket.RECURSION_AVAILABLE |
        (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0) |
        rcode,
      questions: query.questions,
      answers,
    });
  const record = { name: question.name, ttl: 60, class: 'IN' as const };
  if (question.name === 'nas.lan' && question.type === 'A') {
    return reply(0, [{ ...record, type: 'A', data: '192.168.1.10' }]);
  }
  if (question.name === 'printer.lan' && question.type === 'A') {
    return reply(0, [{ ...record, type: 'A', data: '192.168.1.20' }]);
  }
  if (question.name === 'moved.lan' && question.type === 'A') {
    // Where the name points now, not where the service expects it.
    return reply(0, [{ ...record, type: 'A', data: '192.168.1.10' }]);
  }
  if (question.name === 'lan' && question.type === 'MX') {
    return reply(0, [{ ...record, type: 'MX', data: { preference: 10, exchange: 'mail.lan' } }]);
  }
  if (question.name === 'broken.lan') return reply(2); // SERVFAIL
  if (question.name === 'big.lan' && question.type === 'TXT') {
    // Too big for UDP: the truncation bit and nothing else, the whole answer over TCP.
    if (transport === 'udp') return reply(0, [], true);
    return reply(
      0,
      bigTxt.map((text) => ({ ...record, type: 'TXT' as const, data: text })),
    );
  }
  return reply(3); // NXDOMAIN
}

/** A DNS server on 127.0.0.1, UDP and TCP on one port, counting the questions each transport got. */
async function startDns(t: Teardown) {
  const seen = { udp: [] as string[], tcp: [] as string[] };
  for (;;) {
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const port = udp.address().port;
    const tcp = net.createServer((socket) => {
      let buffered = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
          const length = buffered.readUInt16BE(0);
          const query = dnsPacket.decode(buffered.subarray(2, 2 + length));
          buffered = buffered.subarray(2 + length);
          seen.tcp.push(`${query.questions?.[0]?.name} ${query.questions?.[0]?.type}`);
          const response = answer(query, 'tcp');
          const prefix = Buffer.alloc(2);
          prefix.writeUInt16BE(response.length);
          socket.write(Buffer.concat([prefix, response]));
        }
      });
      socket.on('error', () => undefined);
    });
    const listening = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!listening) {
      udp.close();
      continue; // The TCP port was taken: try another pair.
    }
    udp.on('message', (message, remote) => {
      const query = dnsPacket.decode(message);
      seen.udp.push(`${query.questions?.[0]?.name} ${query.questions?.[0]?.type}`);
      udp.send(answer(query, 'udp'), remote.port, remote.address);
    });
    t.teardown(() => {
      udp.close();
      return new Promise<void>((resolve) => tcp.close(() => resolve()));
    });
    return { port, seen };
  }
}

/** A fake ping: prints what iputils prints when no reply comes, after waiting out the deadline it was given. */
function fakePing(t: Teardown): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hub-fake-ping-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const program = path.join(dir, 'ping');
  writeFileSync(
    program,
    `#!/bin/sh
# Arguments as the hub passes them: -n -c COUNT -i INTERVAL -W WAIT -w DEADLINE HOST
count=3; host=""
while [ $# -gt 0 ]; do
  case "$1" in
    -c) count=$2; shift 2;;
    -i|-W|-w) shift 2;;
    -n) shift;;
    *) host=$1; shift;;
  esac
done
echo "PING $host ($host) 56(84) bytes of data."
echo "$*" > /dev/null
if [ "$host" = "10.0.0.99" ]; then
  # A reply, but slower than any sensible time limit.
  echo "64 bytes from $host: icmp_seq=1 ttl=64 time=900 ms"
  echo ""
  echo "--- $host ping statistics ---"
  echo "$count packets transmitted, 1 received, $(( (count - 1) * 100 / count ))% packet loss, time 1000ms"
  echo "rtt min/avg/max/mdev = 900.000/900.000/900.000/0.000 ms"
  exit 0
fi
echo ""
echo "--- $host ping statistics ---"
echo "$count packets transmitted, 0 received, 100% packet loss, time 1000ms"
exit 1
`,
  );
  chmodSync(program, 0o755);
  return program;
}

const alerts = await startUpstream(t, (_request, response) => response.writeHead(200).end());
const dns = await startDns(t);
const ta = await testApp(t, { env: { ALERT_URL: `${alerts.url}/alerts` } });
const deps = { sql: ta.sql, config: ta.config };

async function create(payload: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url: '/api/health/services', payload });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.body}`);
  return response.json();
}
const service = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/health/services/${id}` })).json();
const remove = (id: string) => ta.asOwner({ method: 'DELETE', url: `/api/health/services/${id}` });

t.test('definitions of the new kinds: targets, defaults, fields of other kinds cleared', async (t) => {
  const bad = [
    [{ name: 'x', kind: 'ping' }, /host is required for a ping check/],
    [{ name: 'x', kind: 'dns', host: '127.0.0.1' }, /dns_name is required/],
    [{ name: 'x', kind: 'dns', host: '127.0.0.1', dns_name: 'bad name!' }, /is not a DNS name/],
    [{ name: 'x', kind: 'ping', host: '169.254.169.254' }, /cloud metadata/],
    [{ name: 'x', kind: 'tcp', host: 'nas.lan', port: 22, headers: { 'x-a': 'b' } }, /headers apply to http/],
    [{ name: 'x', kind: 'http', url: 'http://a/', body: '{}' }, /a GET check sends no body/],
    [
      { name: 'x', kind: 'http', url: 'http://a/', json_query: { pointer: 'status', expected: 'ok' } },
      /JSON Pointer/,
    ],
  ] as const;
  for (const [payload, message] of bad) {
    const response = await ta.asOwner({ method: 'POST', url: '/api/health/services', payload });
    t.equal(response.statusCode, 400, JSON.stringify(payload));
    t.match(response.json(), { code: 'INVALID_SERVICE_CHECK', message });
  }
  const outOfRange = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'x', kind: 'ping', host: 'nas.lan', packets: 11 },
  });
  t.equal(outOfRange.statusCode, 400);
  const pinged = await create({ name: 'NAS ping', kind: 'ping', host: 'NAS.lan', keyword: 'ignored' });
  t.match(pinged, { target: 'ping://nas.lan', packets: 3, port: null, keyword: null, dns_name: null });
  const asked = await create({ name: 'Pi-hole', kind: 'dns', host: '192.168.1.2', dns_name: 'NAS.lan.' });
  t.match(asked, { target: 'dns://192.168.1.2:53/nas.lan/A', port: 53, dns_type: 'A', dns_name: 'nas.lan' });
  const srv = await create({
    name: 'SRV',
    kind: 'dns',
    host: '192.168.1.2',
    dns_name: '_http._tcp.lan',
    dns_type: 'SRV',
  });
  t.equal(srv.target, 'dns://192.168.1.2:53/_http._tcp.lan/SRV');
  // Another kind: the dns fields go.
  const changed = await ta.asOwner({
    method: 'PATCH',
    url: `/api/health/services/${asked.id}`,
    payload: { kind: 'tcp', port: 53 },
  });
  t.match(changed.json(), { kind: 'tcp', target: 'tcp://192.168.1.2:53', dns_name: null, dns_type: null });
  for (const { id } of [pinged, asked, srv]) await remove(id);
});

t.test('ping: 127.0.0.1 answers through the system ping', async (t) => {
  const local = await create({ name: 'Loopback', kind: 'ping', host: '127.0.0.1', packets: 2 });
  await checkServices(deps, { ids: [local.id] });
  const checked = await service(local.id);
  t.match(checked, {
    state: 'up',
    message: /^2\/2 replies, 0% loss, [\d.]+ ms$/,
    details: { packets: 2, received: 2, loss_pct: 0 },
  });
  t.type(checked.latency_ms, 'number');
  const history = (
    await ta.asOwner({ method: 'GET', url: `/api/health/services/${local.id}/history` })
  ).json();
  t.match(history.checks, [{ ok: true, state: 'up', details: { packets: 2, received: 2 } }]);
  await remove(local.id);
});

t.test('ping: no reply, or a reply later than timeout_ms, is down (a fake ping program)', async (t) => {
  const program = fakePing(t);
  const faked = await testApp(t, { env: { HEALTH_PING_COMMAND: program } });
  const fakedDeps = { sql: faked.sql, config: faked.config };
  const post = async (payload: Record<string, unknown>) =>
    (await faked.asOwner({ method: 'POST', url: '/api/health/services', payload })).json();
  const silent = await post({ name: 'Silent', kind: 'ping', host: '127.0.0.1', packets: 3, timeout_ms: 500 });
  const slow = await post({ name: 'Far away', kind: 'ping', host: '10.0.0.99', packets: 2, timeout_ms: 500 });
  await checkServices(fakedDeps, { ids: [silent.id, slow.id] });
  const read = async (id: string) =>
    (await faked.asOwner({ method: 'GET', url: `/api/health/services/${id}` })).json();
  t.match(await read(silent.id), {
    state: 'down',
    message: 'no reply from 127.0.0.1 (100% loss)',
    latency_ms: null,
    details: { packets: 3, received: 0, loss_pct: 100 },
  });
  t.match(await read(slow.id), {
    state: 'down',
    message: 'no reply within 500 ms (slowest 900 ms)',
    details: { packets: 2, received: 1, loss_pct: 50 },
  });
});

t.test(
  'dns: an answer, an expected answer, NXDOMAIN, SERVFAIL, and truncation retried over TCP',
  async (t) => {
    const base = { kind: 'dns', host: '127.0.0.1', port: dns.port, timeout_ms: 2000 };
    const nas = await create({ ...base, name: 'nas', dns_name: 'nas.lan' });
    const expected = await create({
      ...base,
      name: 'printer',
      dns_name: 'printer.lan',
      expect: '192.168.1.20',
    });
    const wrong = await create({
      ...base,
      name: 'printer moved',
      dns_name: 'printer.lan',
      dns_type: 'A',
      expect: '192.168.1.11',
    }).catch((error: Error) => error);
    t.match(wrong, { message: /409.*SERVICE_TARGET_TAKEN/ }, 'one service per server, name and type');
    const moved = await create({ ...base, name: 'moved', dns_name: 'moved.lan', expect: '192.168.1.11' });
    const mx = await create({ ...base, name: 'mx', dns_name: 'lan', dns_type: 'MX', expect: '10 mail.lan.' });
    const missing = await create({ ...base, name: 'missing', dns_name: 'nothing.lan' });
    const broken = await create({ ...base, name: 'broken', dns_name: 'broken.lan' });
    const big = await create({
      ...base,
      name: 'big',
      dns_name: 'big.lan',
      dns_type: 'TXT',
      expect: bigTxt[39],
    });
    await checkServices(deps, { ids: [nas.id, expected.id, moved.id, mx.id, missing.id, broken.id, big.id] });

    t.match(await service(nas.id), {
      state: 'up',
      message: 'A 192.168.1.10',
      details: { rcode: 'NOERROR', answers: ['192.168.1.10'] },
    });
    t.match(await service(expected.id), { state: 'up' });
    t.match(await service(expected.id), { details: { answers: ['192.168.1.20'] } });
    t.match(await service(moved.id), {
      state: 'down',
      message: 'expected 192.168.1.11, got 192.168.1.10',
      details: { answers: ['192.168.1.10'] },
    });
    t.match(await service(mx.id), { state: 'up', details: { answers: ['10 mail.lan'] } });
    t.match(await service(missing.id), {
      state: 'down',
      message: 'NXDOMAIN',
      details: { rcode: 'NXDOMAIN', answers: [] },
    });
    t.match(await service(broken.id), { state: 'down', message: 'SERVFAIL', details: { rcode: 'SERVFAIL' } });
    const whole = await service(big.id);
    t.match(whole, { state: 'up', details: { rcode: 'NOERROR' } });
    t.equal(whole.details.answers.length, 40, 'the whole answer, which only TCP carried');
    t.ok(dns.seen.udp.includes('big.lan TXT'), 'asked over UDP first');
    t.ok(dns.seen.tcp.includes('big.lan TXT'), 'asked again over TCP after the truncated answer');
    t.notOk(dns.seen.tcp.includes('nas.lan A'), 'a plain answer needs no TCP');
    for (const { id } of [nas, expected, moved, mx, missing, broken, big]) await remove(id);
  },
);

t.test('http: method, headers, body and json_query; headers write-only', async (t) => {
  const api = await startUpstream(t, (request, response) => {
    if (request.method !== 'POST' || request.headers['x-api-key'] !== 'k-123') {
      response.writeHead(401).end();
      return;
    }
    const asked = JSON.parse(request.body || '{}');
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ status: asked.status ?? 'ok', checks: { 'db/main': { healthy: true, ms: 3 } } }));
  });
  const post = { kind: 'http', method: 'POST', headers: { 'X-Api-Key': 'k-123' }, body: '{"status":"ok"}' };
  const healthy = await create({
    ...post,
    name: 'API',
    url: `${api.url}/health`,
    json_query: { pointer: '/checks/db~1main/healthy', expected: 'true' },
  });
  t.same(healthy.headers, { set: true, names: ['x-api-key'] }, 'only the names are shown');
  t.notOk(JSON.stringify(healthy).includes('k-123'));
  const mismatch = await create({
    ...post,
    name: 'API status',
    url: `${api.url}/status`,
    body: '{"status":"degraded"}',
    json_query: { pointer: '/status', expected: 'ok' },
  });
  const nowhere = await create({
    ...post,
    name: 'API missing',
    url: `${api.url}/missing`,
    json_query: { pointer: '/nothing/here', expected: 'x' },
  });
  const noKey = await create({ kind: 'http', method: 'POST', name: 'No key', url: `${api.url}/nokey` });
  await checkServices(deps, { ids: [healthy.id, mismatch.id, nowhere.id, noKey.id] });
  t.match(await service(healthy.id), { state: 'up', message: 'HTTP 200' });
  t.match(await service(mismatch.id), {
    state: 'down',
    message: 'json_query: /status is degraded, expected ok',
  });
  t.match(await service(nowhere.id), { state: 'down', message: 'json_query: nothing at /nothing/here' });
  t.match(await service(noKey.id), { state: 'down', message: 'HTTP 401' });
  const sent = api.requests.find((request) => request.url === '/health');
  t.match(sent, { method: 'POST', body: '{"status":"ok"}', headers: { 'x-api-key': 'k-123' } });

  // A patch leaves the headers as they are; null removes them.
  await ta.asOwner({
    method: 'PATCH',
    url: `/api/health/services/${healthy.id}`,
    payload: { name: 'API 2' },
  });
  await checkServices(deps, { ids: [healthy.id] });
  t.match(await service(healthy.id), { state: 'up', headers: { set: true } });
  await ta.asOwner({
    method: 'PATCH',
    url: `/api/health/services/${healthy.id}`,
    payload: { headers: null },
  });
  await checkServices(deps, { ids: [healthy.id] });
  t.match(await service(healthy.id), {
    state: 'down',
    message: 'HTTP 401',
    headers: { set: false, names: [] },
  });
  for (const { id } of [healthy, mismatch, nowhere, noKey]) await remove(id);
});

t.test(
  'slow_ms: a pass slower than it is degraded, up for uptime, an event and a service.degraded alert',
  async (t) => {
    let delay = 0;
    const server = http.createServer((_request, response) => {
      setTimeout(() => response.writeHead(200).end('fine'), delay);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as net.AddressInfo).port;
    const sluggish = await create({
      name: 'Sluggish',
      kind: 'http',
      url: `http://127.0.0.1:${port}/`,
      // Far apart from the answer's delays, so a busy machine's own slowness is not taken for the service's.
      slow_ms: 1000,
    });
    const tcp = await create({ name: 'Port', kind: 'tcp', host: '127.0.0.1', port, slow_ms: 60_000 });
    await checkServices(deps, { ids: [sluggish.id, tcp.id] });
    t.match(await service(sluggish.id), { state: 'up' });
    t.match(await service(tcp.id), { state: 'up', slow_ms: 60_000 });

    delay = 1500;
    await checkServices(deps, { ids: [sluggish.id] });
    const slow = await service(sluggish.id);
    t.match(slow, { state: 'degraded', message: 'HTTP 200' });
    t.ok(slow.latency_ms >= 1500);
    const history = (
      await ta.asOwner({ method: 'GET', url: `/api/health/services/${sluggish.id}/history` })
    ).json();
    t.match(history, {
      uptime: { '24h': 100, '7d': 100, '30d': 100 },
      checks: [{ ok: true, state: 'degraded' }, { state: 'up' }],
    });
    t.ok(
      history.checks.every((check: { latency_ms: number | null }) => typeof check.latency_ms === 'number'),
    );
    const events = (
      await ta.asOwner({ method: 'GET', url: `/api/health/events?service_id=${sluggish.id}` })
    ).json();
    t.match(events.items[0], { from_state: 'up', to_state: 'degraded' });

    delay = 0;
    await checkServices(deps, { ids: [sluggish.id] });
    t.match(await service(sluggish.id), { state: 'up' });
    // The alert raised (recorded; the rules decide where it goes).
    const degraded = await ta.sql<{ title: string; data: Record<string, unknown> }[]>`
      select title, data from alerts where event = 'service.degraded'`;
    t.equal(degraded.length, 1);
    t.match(degraded[0], {
      title: 'Sluggish is slow',
      data: { service: 'Sluggish', state: 'degraded', slow_ms: 1000 },
    });
    for (const { id } of [sluggish, tcp]) await remove(id);
  },
);
