// Test certificates made at run time with openssl: a CA of the test's own and server certificates it signs (valid,
// expired, about to expire, for another name), and HTTPS or plain TLS servers on loopback presenting them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface KeyPair {
  key: string;
  cert: string;
}

export interface TestCa {
  /** The CA certificate's file, for a setting that trusts it (PVE_CA_FILE, HEALTH_CA_FILE). */
  file: string;
  cert: string;
  /**
   * A server certificate signed by the CA, for `name` (a DNS name or an IP address, in the subject and the
   * subjectAltName), valid from now for `days` (negative: expired that many days ago).
   */
  issue(name: string, days: number): KeyPair;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

export function testCa(t: Teardown, name = 'Hub Test CA'): TestCa {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hub-test-ca-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'ca.pem');
  const caKey = path.join(dir, 'ca.key');
  openssl(
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
      '-keyout',
      caKey,
      '-out',
      file,
      '-days',
      '30',
      '-subj',
      `/CN=${name}`,
    ]),
  );
  let serial = 0;
  return {
    file,
    cert: readFileSync(file, 'utf8'),
    issue(host, days) {
      const base = path.join(dir, `server-${++serial}`);
      const ext = `${base}.ext`;
      const san = /^[\d.]+$|:/.test(host) ? `IP:${host}` : `DNS:${host}`;
      writeFileSync(ext, `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`);
      openssl(
        ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
          '-keyout',
          `${base}.key`,
          '-out',
          `${base}.csr`,
          '-subj',
          `/CN=${host}`,
        ]),
      );
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `${base}.csr`,
          '-CA',
          file,
          '-CAkey',
          caKey,
          '-set_serial',
          String(serial),
        ].concat(['-days', String(days), '-extfile', ext, '-out', `${base}.pem`]),
      );
      return { key: readFileSync(`${base}.key`, 'utf8'), cert: readFileSync(`${base}.pem`, 'utf8') };
    },
  };
}

async function listening(t: Teardown, server: tls.Server | https.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if (server instanceof https.Server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

/** A TLS server on 127.0.0.1 presenting `pair` and saying hello to whoever connects; its port. */
export function startTlsServer(t: Teardown, pair: KeyPair): Promise<number> {
  return listening(
    t,
    tls.createServer(pair, (socket) => socket.end('hello\n')),
  );
}

/** An HTTPS server on 127.0.0.1 presenting `pair`; its port. */
export function startHttpsServer(t: Teardown, pair: KeyPair, handler: http.RequestListener): Promise<number> {
  return listening(t, https.createServer(pair, handler));
}
