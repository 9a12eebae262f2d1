// Fake upstreams: real HTTP servers on loopback standing in for the services the hub talks to.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface Upstream {
  url: string;
  port: number;
  server: http.Server;
  /** Requests seen, in order. */
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
}

export async function startUpstream(
  t: Teardown,
  handler: (request: http.IncomingMessage & { body: string }, response: http.ServerResponse) => void,
  host = '127.0.0.1',
): Promise<Upstream> {
  const requests: Upstream['requests'] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        headers: request.headers,
        body,
      });
      handler(Object.assign(request, { body }), response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}`, port, server, requests };
}
