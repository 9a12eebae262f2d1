// The e-mail target looks its host name up once with the system's resolver (never to a cloud metadata address) and
// nodemailer dials the answer. The other e-mail tests give 127.0.0.1; here, with this process's DNS servers pointed
// at a responder on 127.0.0.1 that records every question, a test alert to `localhost` arrives and no question is
// asked of any server. Other names are looked up by a lookup the test gives (no test resolves a name beyond
// loopback).
import dgram from 'node:dgram';
import dns from 'node:dns';
import dnsPacket from 'dns-packet';
import t from 'tap';
import { type Outgoing, SendError, send } from '../../../domains/alerts/send.ts';
import type { LookupFn } from '../../../lib/safe-fetch.ts';
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

t.test(
  'a host name is looked up once, and one answering a cloud metadata address is never dialled',
  async (t) => {
    const names: Record<string, string[]> = {
      'mail.home.test': ['127.0.0.1'],
      'metadata.home.test': ['127.0.0.1', '169.254.169.254'],
    };
    const asked: string[] = [];
    const lookup: LookupFn = async (name) => {
      asked.push(name);
      return (names[name] ?? []).map((address) => ({ address, family: 4 }));
    };
    const target = (host: string) => ({
      id: 'target',
      name: 'Mail',
      kind: 'email' as const,
      fields: { host, port: smtp.port, tls: 'none', ...login, from: 'hub@home.lan', to: ['owner@home.lan'] },
    });
    const alert: Outgoing = {
      event: 'test',
      title: 'By name',
      message: 'sent to a name',
      priority: 3,
      tags: [],
      link: null,
      data: {},
      resolves: false,
      deliveryId: 'delivery',
      alertId: 'alert',
      actions: [],
      at: new Date(),
    };
    const before = smtp.mails.length;
    t.match(await send(target('mail.home.test'), alert, 5_000, lookup), { status: 250 });
    t.equal(smtp.mails.length, before + 1, 'a name answering loopback: the mail arrived');
    t.same(asked, ['mail.home.test'], 'looked up once, by the hub');

    for (const [host, reason] of [
      ['metadata.home.test', /metadata\.home\.test resolves to 169\.254\.169\.254, a cloud metadata address/],
      ['metadata.google.internal', /metadata\.google\.internal is a cloud metadata address/],
      ['[fd00:ec2::254]', /cloud metadata/],
    ] as const) {
      const error = await send(target(host), alert, 5_000, lookup).catch((error: unknown) => error);
      t.ok(error instanceof SendError, host);
      t.match(error, { message: reason, permanent: true }, `${host}: refused for good`);
    }
    t.equal(smtp.mails.length, before + 1, 'nothing more was sent');
    t.same(
      asked,
      ['mail.home.test', 'metadata.home.test'],
      'a metadata host name or address is not even looked up',
    );
    const unknown = await send(target('nowhere.home.test'), alert, 5_000, lookup).catch(
      (error: unknown) => error,
    );
    t.match(
      unknown,
      { message: /nowhere\.home\.test has no address/ },
      'a name without an address is refused',
    );
  },
);
