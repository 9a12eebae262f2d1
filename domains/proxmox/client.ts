// The Proxmox VE API with a read-only token: `Authorization: PVEAPIToken=USER@REALM!TOKENID=SECRET`, answers in a
// `{ "data": ... }` envelope. TLS is verified (against the given CA certificate when there is one); tlsInsecure turns it off.
import { HubError, hubError } from '../../lib/errors.ts';
import { upstreamAgent } from '../../lib/safe-fetch.ts';
import { callUpstream, UpstreamError, upstreamFailure } from '../../lib/upstream.ts';

export interface PveOptions {
  url: string;
  token: string;
  /** PEM text of the certificate to trust (PVE_CA_FILE's content), or null for the system's. */
  ca: string | null;
  tlsInsecure: boolean;
  timeoutMs: number;
}

export interface PveClient {
  get<T>(path: string): Promise<T>;
  close(): Promise<void>;
}

export function pveClient(options: PveOptions): PveClient {
  const dispatcher = upstreamAgent({
    ca: options.ca ?? undefined,
    rejectUnauthorized: !options.tlsInsecure,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  return {
    async get<T>(path: string): Promise<T> {
      try {
        const answer = await callUpstream(`${options.url}/api2/json${path}`, {
          headers: { authorization: `PVEAPIToken=${options.token}` },
          timeoutMs: options.timeoutMs,
          dispatcher,
        });
        const body = answer.body as { data?: T } | null;
        if (!body || typeof body !== 'object' || !('data' in body)) {
          throw new UpstreamError(`answer to ${path} has no data envelope`, answer.status);
        }
        return body.data as T;
      } catch (error) {
        if (error instanceof UpstreamError && (error.status === 401 || error.status === 403)) {
          const refused = hubError('PROXMOX_TOKEN_REFUSED', error.message);
          throw new HubError(refused.code, refused.message, {
            upstream: { status: error.status, reason: error.message },
          });
        }
        throw upstreamFailure('PROXMOX_UPSTREAM_FAILED', error);
      }
    },
    close: () => dispatcher.close(),
  };
}
