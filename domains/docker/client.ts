// A small client of the Docker Engine API: the containers (`GET /containers/json?all=true`) and the daemon's
// version (`GET /version`, the integration's test). The daemon is reached on its unix socket, or over TCP, plain or
// TLS with the client certificate the daemon asks for (as the docker CLI reads DOCKER_CERT_PATH). Paths carry no API
// version: the daemon answers them in its own, and every field read here has been in the answer since API 1.24.
import type { Dispatcher } from 'undici';
import { undici, upstreamAgent } from '../../lib/safe-fetch.ts';
import { callUpstream, UpstreamError } from '../../lib/upstream.ts';

export interface DockerSettings {
  /** The daemon's address: unix:///path, tcp://host:port, http://host:port or https://host:port. */
  host: string;
  /** PEM texts when TLS is spoken (https://, or tcp:// with TLS asked for); null: plain. */
  tls: { ca: string | null; cert: string | null; key: string | null } | null;
}

/** One entry of `GET /containers/json` (the fields the hub reads; the daemon sends more). */
export interface DockerContainer {
  Id: string;
  Names: string[];
  Image: string;
  /** created, running, paused, restarting, removing, exited or dead. */
  State: string;
  /** In words: "Up 2 hours (healthy)", "Exited (0) 3 minutes ago". */
  Status: string;
  Labels: Record<string, string> | null;
  /** API 1.50 and later: the health check's state. */
  Health?: { Status?: string; FailingStreak?: number };
}

export interface DockerVersion {
  Version?: string;
  ApiVersion?: string;
  Os?: string;
  Arch?: string;
}

export interface DockerClient {
  containers(): Promise<DockerContainer[]>;
  version(): Promise<DockerVersion>;
  close(): Promise<void>;
}

/** The base URL of requests and the dispatcher that reaches the daemon. */
function endpoint(settings: DockerSettings, timeoutMs: number): { base: string; dispatcher: Dispatcher } {
  const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  if (settings.host.startsWith('unix://')) {
    // The socket is a local file the owner named: no address to guard. The host name is only the Host header.
    return {
      base: 'http://docker',
      dispatcher: new (undici().Agent)({
        ...timeouts,
        connect: { socketPath: settings.host.slice('unix://'.length) },
      }),
    };
  }
  const address = settings.host.replace(/^[a-z]+:\/\//, '').replace(/\/+$/, '');
  const tls = settings.tls;
  return {
    base: `${tls ? 'https' : 'http'}://${address}`,
    dispatcher: upstreamAgent({
      ...timeouts,
      ca: tls?.ca ?? undefined,
      cert: tls?.cert ?? undefined,
      key: tls?.key ?? undefined,
    }),
  };
}

export function dockerClient(settings: DockerSettings, timeoutMs: number): DockerClient {
  const { base, dispatcher } = endpoint(settings, timeoutMs);
  const get = async (path: string) =>
    (await callUpstream(`${base}${path}`, { timeoutMs, dispatcher })).body as unknown;
  return {
    async containers() {
      const body = await get('/containers/json?all=true');
      if (!Array.isArray(body)) throw new UpstreamError('the container list is not a JSON array', 200);
      return body as DockerContainer[];
    },
    async version() {
      const body = await get('/version');
      if (!body || typeof body !== 'object') throw new UpstreamError('the version answer is not JSON', 200);
      return body as DockerVersion;
    },
    close: () => dispatcher.close(),
  };
}
