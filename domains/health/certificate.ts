// The certificate a TLS server presents: a handshake with SNI (the host, when it is a name), the chain verified
// against the system's roots plus HEALTH_CA_FILE, the name checked, and what it says kept (subject, issuer, expiry).
// The handshake completes even when verification fails, so an untrusted or expired certificate is still described.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { upstreamLookup } from '../../lib/safe-fetch.ts';

export interface Certificate {
  subject: string;
  issuer: string;
  not_after: string;
  days_left: number;
  verified: boolean;
  error: string | null;
}

const dayMs = 86_400_000;

const trusted = new Map<string, string[]>();

/** The certificates a check trusts: the system's roots and, when HEALTH_CA_FILE names one, the owner's own CA. */
export function trustedCertificates(caFile: string | null): string[] | undefined {
  if (!caFile) return undefined;
  let roots = trusted.get(caFile);
  if (!roots) {
    roots = [...tls.rootCertificates, readFileSync(caFile, 'utf8')];
    trusted.set(caFile, roots);
  }
  return roots;
}

function names(fields: Record<string, string | string[]> | undefined): string {
  return Object.entries(fields ?? {})
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : value}`)
    .join(', ');
}

export function readCertificate(
  host: string,
  port: number,
  options: { timeoutMs: number; ca: string[] | undefined },
): Promise<Certificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host,
      port,
      servername: isIP(host) ? undefined : host,
      ca: options.ca,
      rejectUnauthorized: false,
      lookup: upstreamLookup,
      timeout: options.timeoutMs,
    });
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.once('timeout', () =>
      fail(Object.assign(new Error(`timed out after ${options.timeoutMs} ms`), { name: 'TimeoutError' })),
    );
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      const peer = socket.getPeerCertificate();
      const authorizationError = socket.authorizationError as unknown as Error | string | null;
      socket.end();
      socket.destroy();
      if (!peer?.valid_to) return reject(new Error('the server presented no certificate'));
      const notAfter = new Date(peer.valid_to);
      resolve({
        subject: names(peer.subject as never),
        issuer: names(peer.issuer as never),
        not_after: notAfter.toISOString(),
        days_left: Math.floor((notAfter.getTime() - Date.now()) / dayMs),
        verified: socket.authorized,
        error: socket.authorized
          ? null
          : typeof authorizationError === 'string'
            ? authorizationError
            : (authorizationError?.message ?? 'not verified'),
      });
    });
  });
}
