// The client for upstreams the owner configures (weather, Proxmox, the link shortener): trusted settings that may
// live on the LAN, so only cloud metadata is refused (lib/safe-fetch.ts, upstreamAgent); every call has a time limit
// and TLS is verified unless a dispatcher says otherwise. A failure is an UpstreamError saying what went wrong in words a person can act on: the upstream's
// own status and reason, a timeout, or a refused connection. It never becomes our status.
import type { Dispatcher } from 'undici';
import { type ErrorCode, HubError, hubError, statusPhrase } from './errors.ts';
import { onFirstUse } from './lazy.ts';
import { GuardError, undici, upstreamAgent } from './safe-fetch.ts';

export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the text when the body is not JSON. */
  body: unknown;
}

export class UpstreamError extends Error {
  /** The upstream's HTTP status; null when no answer came (timeout, refused, reset). */
  readonly status: number | null;
  readonly body: unknown;
  constructor(message: string, status: number | null, body?: unknown) {
    super(message);
    this.name = 'UpstreamError';
    this.status = status;
    this.body = body;
  }
}

export interface UpstreamRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  json?: unknown;
  /** A body sent as it is (its content-type among the headers); instead of json. */
  body?: string;
  timeoutMs: number;
  dispatcher?: Dispatcher;
}

const maxBodyBytes = 4 * 1024 * 1024;
const ownerUpstream = onFirstUse(() => upstreamAgent());

function failureReason(error: unknown, timeoutMs: number): string {
  if (error instanceof GuardError) return `refused: ${error.message}`;
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code;
  if (err.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return `no answer within ${timeoutMs} ms`;
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `could not connect within ${timeoutMs} ms`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOENT') return 'no such socket';
  if (code === 'EACCES') return 'permission denied on the socket';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name not found';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT') || code === 'DEPTH_ZERO_SELF_SIGNED_CERT') {
    return `TLS certificate not accepted (${code})`;
  }
  return code ? `request failed (${code})` : 'request failed';
}

/** One call: the answer for a 2xx, otherwise an UpstreamError. */
export async function callUpstream(url: string, options: UpstreamRequest): Promise<UpstreamAnswer> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let response: Dispatcher.ResponseData;
  let text: string;
  try {
    response = await undici().request(url, {
      method: options.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.json === undefined ? options.body : JSON.stringify(options.json),
      signal,
      dispatcher: options.dispatcher ?? ownerUpstream(),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    // Counted as it arrives: a missing or false content-length must not make us buffer without end.
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > maxBodyBytes) {
        response.body.destroy();
        throw new UpstreamError(`answer larger than ${maxBodyBytes} bytes`, response.statusCode);
      }
      chunks.push(chunk as Buffer);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError(failureReason(error, options.timeoutMs), null);
  }
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the caller's message.
  }
  const status = response.statusCode;
  if (status >= 200 && status < 300) {
    return { status, headers: response.headers, body };
  }
  throw new UpstreamError(`HTTP ${status} ${statusReason(status, body)}`, status, body);
}

/** The reason an upstream gave: its JSON `reason`, `title`, `detail` or `message`, else the status text. */
function statusReason(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const fields = body as Record<string, unknown>;
    for (const key of ['reason', 'detail', 'title', 'message', 'errors']) {
      const value = fields[key];
      if (typeof value === 'string' && value) return value.slice(0, 300);
      if (value && typeof value === 'object') return JSON.stringify(value).slice(0, 300);
    }
  }
  if (typeof body === 'string' && body.trim() && body.length < 300 && !body.includes('<')) return body.trim();
  return statusPhrase(status) ?? 'error';
}

type UpstreamCode = 'WEATHER_UPSTREAM_FAILED' | 'PROXMOX_UPSTREAM_FAILED' | 'SHLINK_UPSTREAM_FAILED';

/**
 * A failure as the hub's 502 `code`, the upstream's status and reason in the message and in `upstream` (status null
 * when no answer came). Our own catalogued errors pass through; anything else is an answer we could not read.
 */
export function upstreamFailure(code: UpstreamCode | ErrorCode, error: unknown): HubError {
  if (error instanceof HubError) return error;
  const status = error instanceof UpstreamError ? error.status : null;
  const reason =
    error instanceof UpstreamError ? error.message : `unreadable answer (${(error as Error).message})`;
  const base = hubError(code as UpstreamCode, reason);
  return new HubError(base.code, base.message, { upstream: { status, reason } });
}
