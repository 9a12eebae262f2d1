// Slow and silent clients are cut off: raw sockets against a listening app with short limits.
import net from 'node:net';
import t from 'tap';
import { connectionsCheckingIntervalMs } from '../../app.ts';
import { ConfigError, loadConfig } from '../../config/index.ts';
import { ownerToken, testApp } from '../helpers/app.ts';

const ta = await testApp(t, {
  env: {
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
    HTTP_HEADERS_TIMEOUT_MS: '1000',
    HTTP_REQUEST_TIMEOUT_MS: '2000',
  },
});
await ta.app.listen({ port: 0, host: '127.0.0.1' });
const port = (ta.app.server.address() as net.AddressInfo).port;

interface Closed {
  ms: number;
  received: string;
}

/** Connects, runs `talk` on the socket, and resolves when the server closes it (or after 10 s). */
function connection(talk: (socket: net.Socket) => void): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for 10 s; received: ${received}`));
    }, 10_000);
    socket.on('close', () => {
      clearTimeout(limit);
      resolve({ ms: Date.now() - started, received });
    });
    socket.on('error', () => undefined);
    socket.on('connect', () => talk(socket));
  });
}

t.test('a client that sends nothing is disconnected', async (t) => {
  const closed = await connection(() => undefined);
  t.match(closed.received, /^HTTP\/1\.1 408/, 'answered 408 Request Timeout');
  t.ok(
    closed.ms <= 1000 + connectionsCheckingIntervalMs + 500,
    `closed after ${closed.ms} ms (HTTP_HEADERS_TIMEOUT_MS is 1000 here)`,
  );
});

t.test('whatever is configured, a silent connection is closed within a minute', async (t) => {
  const defaults = loadConfig({ DATA_DIR: '/srv/hub' });
  t.equal(defaults.http.headersTimeoutMs, 10_000, 'by default after 10 s');
  const longest = loadConfig({ DATA_DIR: '/srv/hub', HTTP_HEADERS_TIMEOUT_MS: '59000' });
  t.ok(
    longest.http.headersTimeoutMs + connectionsCheckingIntervalMs <= 60_000,
    'at most 59 s, checked every second',
  );
  t.throws(() => loadConfig({ DATA_DIR: '/srv/hub', HTTP_HEADERS_TIMEOUT_MS: '60000' }), ConfigError);
  t.throws(() => loadConfig({ DATA_DIR: '/srv/hub', HTTP_HEADERS_TIMEOUT_MS: '600000' }), ConfigError);
});

t.test('headers trickled byte by byte are cut off', async (t) => {
  let timer: NodeJS.Timeout | undefined;
  const closed = await connection((socket) => {
    const head = `GET /api/healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(1000)}`;
    let i = 0;
    timer = setInterval(() => {
      if (i < head.length && !socket.destroyed) socket.write(head[i++]);
    }, 100);
  });
  clearInterval(timer);
  t.match(closed.received, /^HTTP\/1\.1 408/, 'answered 408 Request Timeout');
});

t.test('a body trickled over minutes is cut off', async (t) => {
  let timer: NodeJS.Timeout | undefined;
  const closed = await connection((socket) => {
    socket.write(
      `POST /api/spaces HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${ownerToken}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"',
    );
    timer = setInterval(() => {
      if (!socket.destroyed) socket.write('a');
    }, 100);
  });
  clearInterval(timer);
  t.match(closed.received, /^HTTP\/1\.1 408/, 'answered 408 Request Timeout');
});

t.test('an idle keep-alive connection is closed', async (t) => {
  const closed = await connection((socket) => {
    socket.write('GET /api/healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  });
  t.match(closed.received, /^HTTP\/1\.1 200/, 'the request was answered');
  t.ok(closed.ms < 5000, `then the idle connection closed after ${closed.ms} ms`);
});
