// Docker (README, Configuration): the Engine API the launcher discovers apps from, named as the docker CLI names it.
// DOCKER_HOST is `unix:///var/run/docker.sock`, `tcp://host:2375` (plain; TLS when DOCKER_TLS_VERIFY is set, as the
// CLI does), `https://host:2376` (TLS) or `http://host:2375`; for TLS, DOCKER_CERT_PATH is the folder of ca.pem,
// cert.pem and key.pem (the CA to trust, and the client certificate and key the daemon asks for).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type Env, flag, text } from './env.ts';

export interface DockerConfig {
  /** DOCKER_HOST as given; null: Docker discovery is left to the browser's integration. */
  host: string | null;
  /** Whether TLS is spoken (https://, or tcp:// with DOCKER_TLS_VERIFY). */
  tls: boolean;
  /** The folder of ca.pem, cert.pem and key.pem; null: the system's CAs and no client certificate. */
  certPath: string | null;
}

const certFiles = ['ca.pem', 'cert.pem', 'key.pem'] as const;

export function docker(env: Env): DockerConfig {
  const host = text(env, 'DOCKER_HOST');
  const certPath = text(env, 'DOCKER_CERT_PATH');
  const verify = flag(env, 'DOCKER_TLS_VERIFY');
  if (host === null) return { host: null, tls: false, certPath: null };
  const scheme = /^([a-z]+):\/\//.exec(host)?.[1];
  if (!scheme || !['unix', 'tcp', 'http', 'https'].includes(scheme)) {
    throw new ConfigError(
      'DOCKER_HOST',
      `must be unix:///path/to/docker.sock, tcp://host:port, http://host:port or https://host:port (got "${host}")`,
    );
  }
  if (scheme === 'unix' && !host.startsWith('unix:///')) {
    throw new ConfigError('DOCKER_HOST', `must name an absolute socket path, unix:///... (got "${host}")`);
  }
  const tls = scheme === 'https' || (scheme === 'tcp' && verify);
  if (certPath !== null) {
    for (const file of certFiles) {
      if (!existsSync(path.join(certPath, file))) {
        throw new ConfigError('DOCKER_CERT_PATH', `has no ${file} ("${path.join(certPath, file)}")`);
      }
    }
  }
  return { host, tls, certPath: tls ? certPath : null };
}
