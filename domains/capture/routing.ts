// Which job a captured URL becomes, and the URL rules checked before anything is queued.
import { hubError } from '../../lib/errors.ts';
import { checkUrl, checkUrlResolved, FetchRefusedError } from '../../lib/safe-fetch.ts';
import { type AddressConfig, addressPolicy } from './fetching.ts';

export type CaptureTask = 'ingest.url' | 'ingest.video';

/** Exactly these hosts are videos; look-alikes (notyoutube.com, youtube.com.evil.test) are ordinary pages. */
export const videoHosts: ReadonlySet<string> = new Set([
  'youtube.com',
  'www.youtube.com',
  'm.youtube.com',
  'youtu.be',
]);

export function taskFor(url: URL): CaptureTask {
  // The URL parser has lower-cased the host; a fully qualified name's trailing dot names the same host.
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  return videoHosts.has(host) ? 'ingest.video' : 'ingest.url';
}

/** Where a capture's document says it came from: a video, a pushed or pulled bookmark, or a URL sent to the API. */
export function captureOrigin(task: CaptureTask, via: 'api' | 'webhook'): 'video' | 'webhook' | 'url' {
  return task === 'ingest.video' ? 'video' : via === 'webhook' ? 'webhook' : 'url';
}

function refused(error: unknown): never {
  if (error instanceof FetchRefusedError) throw hubError('URL_REFUSED', `URL refused: ${error.reason}`);
  throw error;
}

/** The URL rules that need no network (syntax, http(s) only, no credentials, no blocked IP literal): 400 URL_REFUSED. */
export function checkCaptureUrl(url: string, config: AddressConfig): URL {
  try {
    return checkUrl(url, addressPolicy(config));
  } catch (error) {
    refused(error);
  }
}

/**
 * checkCaptureUrl plus the addresses a host name resolves to, so `http://localhost/` is refused at intake exactly as
 * `http://127.0.0.1/` is (400 URL_REFUSED); a name that does not resolve is left to the job, which retries it.
 */
export async function checkCaptureUrlResolved(url: string, config: AddressConfig): Promise<URL> {
  try {
    return await checkUrlResolved(url, addressPolicy(config));
  } catch (error) {
    refused(error);
  }
}
