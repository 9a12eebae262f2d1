// A fake Docker Engine API: a real HTTP server on a unix socket in a temp folder (as dockerd listens on
// /var/run/docker.sock), or over TLS on loopback asking for a client certificate (as dockerd --tlsverify does). It
// answers `GET /containers/json` (all containers only with ?all=true), `GET /version` and `GET /_ping` in the Engine
// API's shapes, with or without a /v1.xx prefix, and `{ "message": ... }` errors as the daemon does.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { KeyPair } from './tls.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** One container as `GET /containers/json` lists it (the fields dockerd 27 sends). */
export interface EngineContainer {
  Id: string;
  Names: string[];
  Image: string;
  ImageID: string;
  Command: string;
  Created: number;
  Ports: { IP?: string; PrivatePort: number; PublicPort?: number; Type: string }[];
  Labels: Record<string, string>;
  State: string;
  Status: string;
  HostConfig: { NetworkMode: string };
  NetworkSettings: { Networks: Record<string, unknown> };
  Mounts: unknown[];
  Health?: { Status: string; FailingStreak: number };
}

export interface FakeDocker {
  /** DOCKER_HOST for it: unix:///.../docker.sock, or https://127.0.0.1:port. */
  host: string;
  /** What it lists; change it between syncs. */
  containers: EngineContainer[];
  /** Requests seen, as method and path. */
  requests: string[];
  /** When set, every request answers this status with { message }. */
  failWith: { status: number; message: string } | null;
}

/** A container in the Engine API's shape; `overrides` set its name, labels, state and the rest. */
export function engineContainer(
  name: string,
  overrides: Partial<Omit<EngineContainer, 'Names'>> = {},
): EngineContainer {
  return {
    Id: randomBytes(32).toString('hex'),
    Names: [`/${name}`],
    Image: `example/${name}:latest`,
    ImageID: `sha256:${'0f'.repeat(32)}`,
    Command: '/init',
    Created: 1_732_600_000,
    Ports: [{ IP: '0.0.0.0', PrivatePort: 80, PublicPort: 8080, Type: 'tcp' }],
    Labels: {},
    State: 'running',
    Status: 'Up 2 hours',
    HostConfig: { NetworkMode: 'bridge' },
    NetworkSettings: { Networks: { bridge: { NetworkID: 'f'.repeat(64), IPAddress: '172.17.0.2' } } },
    Mounts: [],
    ...overrides,
  };
}

function handler(fake: FakeDocker): http.RequestListener {
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://docker');
    fake.requests.push(`${request.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown) => {
      response.writeHead(status, {
        'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
        'api-version': '1.47',
        server: 'Docker/27.3.1 (linux)',
      });
      response.end(typeof body === 'string' ? body : `${JSON.stringify(body)}\n`);
    };
    if (fake.failWith) return send(fake.failWith.status, { message: fake.failWith.message });
    const route = url.pathname.replace(/^\/v1\.\d+/, '');
    if (request.method !== 'GET') return send(404, { message: 'page not found' });
    if (route === '/_ping') return send(200, 'OK');
    if (route === '/version') {
      return send(200, {
        Platform: { Name: 'Docker Engine - Community' },
        Version: '27.3.1',
        ApiVersion: '1.47',
        MinAPIVersion: '1.24',
        GitCommit: '41ca978',
        GoVersion: 'go1.22.7',
        Os: 'linux',
        Arch: 'amd64',
        KernelVersion: '6.8.0-45-generic',
        BuildTime: '2024-09-20T11:41:17.000000000+00:00',
      });
    }
    if (route === '/containers/json') {
      const all = ['1', 'true'].includes(url.searchParams.get('all') ?? '');
      return send(
        200,
        fake.containers.filter((container) => all || container.State === 'running'),
      );
    }
    return send(404, { message: 'page not found' });
  };
}

/** The fake on a unix socket in a temp folder. */
export async function startFakeDocker(t: Teardown, containers: EngineContainer[] = []): Promise<FakeDocker> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-docker-'));
  const socket = path.join(dir, 'docker.sock');
  const fake: FakeDocker = { host: `unix://${socket}`, containers, requests: [], failWith: null };
  const server = http.createServer(handler(fake));
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });
  return fake;
}

/** The fake over TLS on 127.0.0.1, presenting `server` and refusing clients without a certificate `ca` signed. */
export async function startFakeDockerTls(
  t: Teardown,
  tls: { server: KeyPair; ca: string },
  containers: EngineContainer[] = [],
): Promise<FakeDocker> {
  const fake: FakeDocker = { host: '', containers, requests: [], failWith: null };
  const server = https.createServer(
    { ...tls.server, ca: tls.ca, requestCert: true, rejectUnauthorized: true },
    handler(fake),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  fake.host = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
