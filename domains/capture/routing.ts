// Which job a captured URL becomes, and the URL rules checked before anything is queued.
import type { Config } from '../../config.ts';
import { checkUrl, FetchRefusedError } from '../../lib/safe-fetch.ts';
import { addressPolicy } from './fetching.ts';

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

export class CaptureUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaptureUrlError';
  }
}

/** The URL rules that need no network (syntax, http(s) only, no credentials, no blocked IP literal). */
export function checkCaptureUrl(url: string, config: Pick<Config, 'allowPrivateFetch'>): URL {
  try {
    return checkUrl(url, addressPolicy(config));
  } catch (error) {
    if (error instanceof FetchRefusedError) throw new CaptureUrlError(`URL refused: ${error.reason}`);
    throw error;
  }
}
