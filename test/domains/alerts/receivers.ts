// Fake alert receivers on loopback, each answering like the real one: ntfy, Gotify, apprise-api, a Standard Webhooks
// consumer (verifying with the reference library) and an SMTP server (smtp-server, with a login).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';
import { startUpstream, type Upstream } from '../../helpers/upstream.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** Answers `status` for the first `failFirst` requests, then as the receiver does. */
function flaky(failFirst: number, status = 503) {
  let left = failFirst;
  return (response: { writeHead(status: number): { end(): void } }) => {
    if (left <= 0) return false;
    left--;
    response.writeHead(status).end();
    return true;
  };
}

/** ntfy: POST /<topic>, an access token as a bearer token; answers the message as JSON. */
export async function startNtfy(t: Teardown, options: { token?: string; failFirst?: number } = {}) {
  const fail = flaky(options.failFirst ?? 0);
  const ntfy: Upstream = await startUpstream(t, (request, response) => {
    if (fail(response)) return;
    if (options.token && request.headers.authorization !== `Bearer ${options.token}`) {
      response.writeHead(401, { 'content-type': 'application/json' });
      return response.end('{"code":40101,"http":401,"error":"unauthorized"}');
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: `m${ntfy.requests.length}`,
        time: Math.floor(Date.now() / 1000),
        event: 'message',
        topic: (request.url ?? '/').slice(1),
        title: request.headers.title,
        message: request.body,
      }),
    );
  });
  return ntfy;
}

/** Gotify: POST /message with the application token in X-Gotify-Key; answers the stored message. */
export async function startGotify(t: Teardown, token: string) {
  let id = 0;
  return startUpstream(t, (request, response) => {
    if (request.method !== 'POST' || request.url !== '/message') return response.writeHead(404).end();
    if (request.headers['x-gotify-key'] !== token) {
      response.writeHead(401, { 'content-type': 'application/json' });
      return response.end(
        '{"error":"Unauthorized","errorCode":401,"errorDescription":"you need to provide a valid access token or user credentials to access this api"}',
      );
    }
    const message = JSON.parse(request.body);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ id: ++id, appid: 1, date: new Date().toISOString(), ...message }));
  });
}

/** apprise-api: POST /notify (stateless, `urls` in the body) or /notify/{key}. */
export async function startApprise(t: Teardown) {
  return startUpstream(t, (request, response) => {
    if (request.method !== 'POST' || !/^\/notify(\/[-\w]+)?\/?$/.test(request.url ?? '')) {
      return response.writeHead(404).end();
    }
    const body = JSON.parse(request.body);
    if (!body.body || (!body.urls && request.url === '/notify')) {
      return response.writeHead(400).end('Bad FORM Payload provided');
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end('Notification(s) sent.');
  });
}

/** A webhook consumer: verifies each request with the Standard Webhooks reference library. */
export async function startWebhookReceiver(
  t: Teardown,
  secret: string,
  options: { failFirst?: number } = {},
) {
  const verifier = new Webhook(secret);
  const verified: unknown[] = [];
  const fail = flaky(options.failFirst ?? 0);
  const receiver = await startUpstream(t, (request, response) => {
    if (fail(response)) return;
    try {
      verified.push(verifier.verify(request.body, request.headers as Record<string, string>));
      response.writeHead(204).end();
    } catch (error) {
      response.writeHead(401, { 'content-type': 'text/plain' }).end((error as Error).message);
    }
  });
  return { ...receiver, verified };
}

export interface Mail {
  from: string;
  to: string[];
  user: string | null;
  data: string;
}

/** A real SMTP server (no TLS, as a LAN relay) asking for a login. */
export async function startSmtp(t: Teardown, login: { user: string; password: string }) {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === login.user && auth.password === login.password) {
        return callback(null, { user: auth.username });
      }
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          user: (session.user as string | undefined) ?? null,
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.server.address() as AddressInfo;
  return { port, mails };
}
