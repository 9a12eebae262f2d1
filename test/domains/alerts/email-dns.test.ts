// The e-mail target checks no DNS of its own: nodemailer connects to an address as given and resolves a name when
// it sends. The other e-mail tests give 127.0.0.1; here, with this process's DNS servers pointed at a responder on
// 127.0.0.1 that records every question, a test alert to `localhost` arrives and no question is asked of any
// server. (No test names a host beyond `localhost`: its resolution would leave loopback.)
import dgram from 'node:dgram';
import dns from 'node:dns';
import dnsPacket from 'dns-packet';
import t from 'tap';
import { testApp } from '../../helpers/app.ts';
import { startSmtp } from './receivers.ts';

const questions: string[] = [];
const responder = dgram.createSocket('udp4');
await new Promise<void>((resolve) => responder.bind(0, '127.0.0.1', resolve));
responder.on('message', (message, remote) => {
  const query = dnsPacket.decode(message);
  questions.push(`${query.questions?.[0]?.name} ${query.questions?.[0]?.type}`);
  const reply = dnsPacket.encode({
    type: 'response',
    id: query.id,
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | 3, // NXDOMAIN
    questions: query.questions,
  });
  responder.send(reply, remote.port, remote.address);
});
t.teardown(() => responder.close());
const servers = dns.getServers();
dns.setServers([`127.0.0.1:${responder.address().port}`]);
t.teardown(() => dns.setServers(servers));

const login = { user: 'hub@home.lan', password: 'smtp-secret-0123456789' };
const smtp = await startSmtp(t, login);
const ta = await testApp(t);

async function emailTarget(host: string) {
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/alerts/targets',
    payload: {
      kind: 'email',
      name: `Mail via ${host}`,
      fields: { host, port: smtp.port, tls: 'none', ...login, from: 'hub@home.lan', to: ['owner@home.lan'] },
    },
  });
  t.equal(created.statusCode, 201, created.body);
  return created.json().id as string;
}

t.test('a target named by host name: sent, and no DNS question asked', async (t) => {
  const id = await emailTarget('localhost');
  const sent = await ta.asOwner({ method: 'POST', url: `/api/alerts/targets/${id}/test` });
  t.match(sent.json(), { ok: true, status: 250 });
  t.equal(smtp.mails.length, 1, 'the mail arrived');
  t.same(questions, [], 'no DNS question was asked');
});
