// Fake upstreams for the dashboard cards, on loopback, answering in the real APIs' shapes: Open-Meteo's forecast,
// Proxmox VE's `{ "data": ... }` envelope (0/1 integers, fractional CPU, loadavg as strings), Shlink's REST API v3
// with problem+json errors. Plus a port nothing listens on and a server that never answers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startUpstream, type Upstream } from '../../helpers/upstream.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export function json(
  response: http.ServerResponse,
  status: number,
  body: unknown,
  type = 'application/json',
) {
  response.writeHead(status, { 'content-type': type });
  response.end(JSON.stringify(body));
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Accepts requests and never answers. */
export function hangingUpstream(t: Teardown): Promise<Upstream> {
  return startUpstream(t, () => undefined);
}

/** Open-Meteo's /v1/forecast answer for the parameters the hub sends. */
export function forecastAnswer(query: URLSearchParams) {
  const imperial = query.get('temperature_unit') === 'fahrenheit';
  const days = [
    '2026-11-22',
    '2026-11-23',
    '2026-11-24',
    '2026-11-25',
    '2026-11-26',
    '2026-11-27',
    '2026-11-28',
  ];
  return {
    latitude: Number(query.get('latitude')),
    longitude: Number(query.get('longitude')),
    generationtime_ms: 0.08,
    utc_offset_seconds: 3600,
    timezone: 'Europe/Berlin',
    timezone_abbreviation: 'GMT+1',
    elevation: 38,
    current_units: {
      time: 'iso8601',
      interval: 'seconds',
      temperature_2m: imperial ? '°F' : '°C',
      apparent_temperature: imperial ? '°F' : '°C',
      relative_humidity_2m: '%',
      is_day: '',
      weather_code: 'wmo code',
      wind_speed_10m: imperial ? 'mp/h' : 'km/h',
      wind_direction_10m: '°',
    },
    current: {
      time: '2026-11-22T18:45',
      interval: 900,
      temperature_2m: imperial ? 41.2 : 5.1,
      apparent_temperature: imperial ? 35.6 : 2,
      relative_humidity_2m: 87,
      is_day: 0,
      weather_code: 61,
      wind_speed_10m: imperial ? 9.3 : 15,
      wind_direction_10m: 250,
    },
    daily_units: {
      time: 'iso8601',
      weather_code: 'wmo code',
      temperature_2m_max: imperial ? '°F' : '°C',
      temperature_2m_min: imperial ? '°F' : '°C',
      precipitation_probability_max: '%',
      precipitation_sum: imperial ? 'inch' : 'mm',
    },
    daily: {
      time: days,
      weather_code: [61, 3, 2, 0, 45, 71, 95],
      temperature_2m_max: [7.2, 8, 9.1, 10, 6.5, 1.2, 12],
      temperature_2m_min: [2.1, 3, 4, 1.5, 0.2, -3.4, 5],
      precipitation_probability_max: [80, 20, 10, 0, 5, 60, 90],
      precipitation_sum: [4.2, 0.1, 0, 0, 0, 3.3, 12.5],
    },
  };
}

export interface FakeOpenMeteo extends Upstream {
  /** What the next answers are: the forecast, an Open-Meteo error, or no answer at all. */
  mode: 'ok' | 'error' | 'hang';
  forecasts(): number;
}

export async function fakeOpenMeteo(t: Teardown): Promise<FakeOpenMeteo> {
  // The handler reads the mode the test sets on the returned object.
  const state: { mode: FakeOpenMeteo['mode'] } = { mode: 'ok' };
  const upstream = await startUpstream(t, (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname !== '/v1/forecast') return json(response, 404, { error: true, reason: 'Not Found' });
    if (state.mode === 'hang') return;
    if (state.mode === 'error') {
      return json(response, 400, {
        error: true,
        reason: 'Cannot initialize WeatherVariable from invalid String value',
      });
    }
    const latitude = Number(url.searchParams.get('latitude'));
    if (!(latitude >= -90 && latitude <= 90)) {
      return json(response, 400, {
        error: true,
        reason: `Latitude must be in range of -90 to 90°. Given: ${latitude}.`,
      });
    }
    json(response, 200, forecastAnswer(url.searchParams));
  });
  const fake = Object.assign(upstream, {
    mode: 'ok' as FakeOpenMeteo['mode'],
    forecasts: () => upstream.requests.filter((r) => r.url.startsWith('/v1/forecast')).length,
  });
  Object.defineProperty(fake, 'mode', {
    get: () => state.mode,
    set: (value: FakeOpenMeteo['mode']) => {
      state.mode = value;
    },
  });
  return fake;
}

export const pveToken = 'monitor@pve!dashboard=3f6a0b2c-1d4e-4f5a-9b8c-7d6e5f4a3b2c';

export interface FakeProxmox extends Upstream {
  /** ok; single: one node without a cluster; empty: a token without permission listing nothing; forbidden: 403. */
  mode: 'ok' | 'single' | 'empty' | 'forbidden' | 'hang';
  calls(path: string): number;
}

const GiB = 1024 ** 3;

function pveAnswer(mode: FakeProxmox['mode'], path: string, query: URLSearchParams): unknown {
  const single = mode === 'single';
  if (path === '/version') return { version: '8.3.0', release: '8.3', repoid: 'c1689ccb1065a83b' };
  if (path === '/cluster/status') {
    if (single) {
      return [
        {
          type: 'node',
          id: 'node/pve1',
          name: 'pve1',
          ip: '10.0.0.11',
          local: 1,
          nodeid: 0,
          online: 1,
          level: '',
        },
      ];
    }
    return [
      { type: 'cluster', id: 'cluster', name: 'homelab', nodes: 2, quorate: 1, version: 4 },
      {
        type: 'node',
        id: 'node/pve1',
        name: 'pve1',
        ip: '10.0.0.11',
        local: 1,
        nodeid: 1,
        online: 1,
        level: '',
      },
      {
        type: 'node',
        id: 'node/pve2',
        name: 'pve2',
        ip: '10.0.0.12',
        local: 0,
        nodeid: 2,
        online: 0,
        level: '',
      },
    ];
  }
  const storages = [
    {
      id: 'storage/pve1/local',
      type: 'storage',
      storage: 'local',
      node: 'pve1',
      status: 'available',
      plugintype: 'dir',
      content: 'iso,vztmpl,backup',
      shared: 0,
      disk: 45 * GiB,
      maxdisk: 100 * GiB,
    },
    {
      id: 'storage/pve1/local-zfs',
      type: 'storage',
      storage: 'local-zfs',
      node: 'pve1',
      status: 'available',
      plugintype: 'zfspool',
      content: 'images,rootdir',
      shared: 0,
      disk: 50 * GiB,
      maxdisk: 200 * GiB,
    },
    // Proxmox lists every storage on every node of the cluster, an offline node's with status unknown.
    ...(single
      ? []
      : [
          {
            id: 'storage/pve2/local-zfs',
            type: 'storage',
            storage: 'local-zfs',
            node: 'pve2',
            status: 'unknown',
            plugintype: 'zfspool',
            content: 'images,rootdir',
            shared: 0,
          },
        ]),
    {
      id: 'storage/pve1/backup-nfs',
      type: 'storage',
      storage: 'backup-nfs',
      node: 'pve1',
      status: 'available',
      plugintype: 'nfs',
      content: 'backup',
      shared: 1,
      disk: 850 * GiB,
      maxdisk: 1000 * GiB,
    },
  ];
  if (path === '/cluster/resources') {
    if (mode === 'empty') return [];
    if (query.get('type') === 'storage') return storages;
    return [
      {
        id: 'node/pve1',
        type: 'node',
        node: 'pve1',
        status: 'online',
        cpu: 0.0512,
        maxcpu: 8,
        mem: 12 * GiB,
        maxmem: 32 * GiB,
        disk: 10 * GiB,
        maxdisk: 100 * GiB,
        uptime: 864000,
        level: '',
      },
      ...(single
        ? []
        : [
            {
              id: 'node/pve2',
              type: 'node',
              node: 'pve2',
              status: 'offline',
              cpu: 0,
              maxcpu: 4,
              mem: 0,
              maxmem: 16 * GiB,
              uptime: 0,
            },
          ]),
      {
        id: 'qemu/100',
        type: 'qemu',
        vmid: 100,
        name: 'web',
        node: 'pve1',
        status: 'running',
        cpu: 0.25,
        maxcpu: 2,
        mem: 2 * GiB,
        maxmem: 4 * GiB,
        disk: 0,
        maxdisk: 32 * GiB,
        uptime: 3600,
        template: 0,
      },
      {
        id: 'lxc/101',
        type: 'lxc',
        vmid: 101,
        name: 'dns',
        node: 'pve1',
        status: 'running',
        cpu: 0.0123,
        maxcpu: 1,
        mem: 256 * 1024 ** 2,
        maxmem: 512 * 1024 ** 2,
        disk: 3 * GiB,
        maxdisk: 8 * GiB,
        uptime: 7200,
        template: 0,
      },
      {
        id: 'lxc/102',
        type: 'lxc',
        vmid: 102,
        name: 'old',
        node: 'pve1',
        status: 'stopped',
        cpu: 0,
        maxcpu: 1,
        mem: 0,
        maxmem: 512 * 1024 ** 2,
        disk: 0,
        maxdisk: 8 * GiB,
        uptime: 0,
        template: 0,
      },
      {
        id: 'qemu/9000',
        type: 'qemu',
        vmid: 9000,
        name: 'debian-template',
        node: 'pve1',
        status: 'stopped',
        cpu: 0,
        maxcpu: 2,
        mem: 0,
        maxmem: 2 * GiB,
        template: 1,
      },
      ...storages,
      { id: 'sdn/pve1/localnetwork', type: 'sdn', sdn: 'localnetwork', node: 'pve1', status: 'ok' },
    ];
  }
  if (path === '/storage') {
    return [
      { storage: 'local', type: 'dir', path: '/var/lib/vz', content: 'iso,vztmpl,backup' },
      { storage: 'local-zfs', type: 'zfspool', pool: 'rpool/data', content: 'images,rootdir', sparse: 1 },
      { storage: 'backup-nfs', type: 'nfs', server: '10.0.0.5', export: '/backup', content: 'backup' },
    ];
  }
  if (path === '/nodes/pve1/status') {
    return {
      loadavg: ['0.42', '0.35', '0.30'],
      cpu: 0.0512,
      uptime: 864000,
      memory: { total: 32 * GiB, used: 12 * GiB, free: 20 * GiB },
    };
  }
  if (path === '/nodes/pve1/disks/zfs') {
    return [
      {
        name: 'rpool',
        size: 400 * GiB,
        alloc: 200 * GiB,
        free: 200 * GiB,
        frag: 12,
        dedup: 1,
        health: 'ONLINE',
      },
      {
        name: 'tank',
        size: 1000 * GiB,
        alloc: 910 * GiB,
        free: 90 * GiB,
        frag: 55,
        dedup: 1,
        health: 'DEGRADED',
      },
    ];
  }
  if (path === '/nodes/pve1/lxc') {
    return [
      {
        vmid: '101',
        name: 'dns',
        status: 'running',
        type: 'lxc',
        disk: 3 * GiB,
        maxdisk: 8 * GiB,
        cpus: 1,
        mem: 256 * 1024 ** 2,
        maxmem: 512 * 1024 ** 2,
        uptime: 7200,
      },
      {
        vmid: '102',
        name: 'old',
        status: 'stopped',
        type: 'lxc',
        disk: 0,
        maxdisk: 8 * GiB,
        cpus: 1,
        mem: 0,
        maxmem: 512 * 1024 ** 2,
        uptime: 0,
      },
    ];
  }
  return undefined;
}

export async function fakeProxmox(
  t: Teardown,
  serve: typeof startUpstream = startUpstream,
): Promise<FakeProxmox> {
  const state: { mode: FakeProxmox['mode'] } = { mode: 'ok' };
  const upstream = await serve(t, (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (state.mode === 'hang') return;
    // Proxmox answers a bad token with 401 and a valid one lacking a privilege with 403, data null either way.
    if (request.headers.authorization !== `PVEAPIToken=${pveToken}`) {
      response.writeHead(401, 'authentication failure', { 'content-type': 'application/json' });
      return response.end('{"data":null}');
    }
    if (state.mode === 'forbidden') {
      response.writeHead(403, 'Permission check failed (/, Sys.Audit)', {
        'content-type': 'application/json',
      });
      return response.end('{"data":null}');
    }
    const path = url.pathname.replace(/^\/api2\/json/, '');
    const data = pveAnswer(state.mode, path, url.searchParams);
    if (data === undefined) {
      response.writeHead(501, `Method 'GET ${path}' not implemented`, { 'content-type': 'application/json' });
      return response.end('{"data":null}');
    }
    json(response, 200, { data });
  });
  const fake = Object.assign(upstream, {
    mode: 'ok' as FakeProxmox['mode'],
    calls: (path: string) =>
      upstream.requests.filter((r) => r.url.split('?')[0] === `/api2/json${path}`).length,
  });
  Object.defineProperty(fake, 'mode', {
    get: () => state.mode,
    set: (value: FakeProxmox['mode']) => {
      state.mode = value;
    },
  });
  return fake;
}

export const shlinkKey = 'a5d0c8a4-37b4-4c0c-9f0e-1f3e1f2d6c71';

export interface FakeShlink extends Upstream {
  links: { shortCode: string; longUrl: string; title: string | null; tags: string[]; dateCreated: string }[];
}

const problem = (response: http.ServerResponse, status: number, body: Record<string, unknown>) =>
  json(response, status, { status, ...body }, 'application/problem+json');

/** Shlink's REST API v3: health, list and create short URLs, problem+json errors. */
export async function fakeShlink(t: Teardown): Promise<FakeShlink> {
  const links: FakeShlink['links'] = [
    {
      shortCode: 'abc12',
      longUrl: 'https://example.com/old',
      title: 'Old',
      tags: [],
      dateCreated: '2026-11-01T10:00:00+00:00',
    },
  ];
  const upstream = await startUpstream(t, (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/rest/health') {
      return json(
        response,
        200,
        { status: 'pass', version: '4.2.1', links: { about: 'https://shlink.io' } },
        'application/health+json',
      );
    }
    if (request.headers['x-api-key'] !== shlinkKey) {
      return problem(response, 401, {
        type: 'https://shlink.io/api/error/invalid-api-key',
        title: 'Invalid API key',
        detail: 'Provided API key does not exist or is invalid.',
      });
    }
    const view = (link: FakeShlink['links'][number]) => ({
      shortCode: link.shortCode,
      shortUrl: `https://s.example/${link.shortCode}`,
      longUrl: link.longUrl,
      dateCreated: link.dateCreated,
      visitsSummary: { total: 3, nonBots: 3, bots: 0 },
      tags: link.tags,
      meta: { validSince: null, validUntil: null, maxVisits: null },
      domain: null,
      title: link.title,
      crawlable: false,
      forwardQuery: true,
    });
    if (url.pathname === '/rest/v3/short-urls' && request.method === 'GET') {
      const sorted = [...links].sort((a, b) => b.dateCreated.localeCompare(a.dateCreated));
      const data = url.searchParams.get('orderBy') === 'dateCreated-DESC' ? sorted : links;
      const perPage = Number(url.searchParams.get('itemsPerPage') ?? 10);
      return json(response, 200, {
        shortUrls: {
          data: data.slice(0, perPage).map(view),
          pagination: {
            currentPage: 1,
            pagesCount: 1,
            itemsPerPage: perPage,
            itemsInCurrentPage: Math.min(perPage, data.length),
            totalItems: data.length,
          },
        },
      });
    }
    if (url.pathname === '/rest/v3/short-urls' && request.method === 'POST') {
      const body = JSON.parse(request.body) as {
        longUrl?: string;
        customSlug?: string;
        title?: string;
        tags?: string[];
      };
      if (body.customSlug && links.some((link) => link.shortCode === body.customSlug)) {
        return problem(response, 400, {
          type: 'https://shlink.io/api/error/non-unique-slug',
          title: 'Invalid custom slug',
          detail: `Provided slug "${body.customSlug}" is already in use.`,
          customSlug: body.customSlug,
        });
      }
      const link = {
        shortCode: body.customSlug ?? `gen${links.length}`,
        longUrl: body.longUrl ?? '',
        title: body.title ?? null,
        tags: body.tags ?? [],
        dateCreated: `2026-11-22T1${links.length}:00:00+00:00`,
      };
      links.push(link);
      return json(response, 200, view(link));
    }
    problem(response, 404, {
      type: 'https://shlink.io/api/error/not-found',
      title: 'Not found',
      detail: 'Not found',
    });
  });
  return Object.assign(upstream, { links });
}
