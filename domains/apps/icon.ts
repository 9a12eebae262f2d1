// The favicon of an app without an iconRef: looked for once (on the first read of its icon), kept as PNG in its
// row, looked for again only when the owner asks or its href changes. Reads of one app while a look is under way
// share it.
import type { Config } from '../../config/index.ts';
import type { SafeFetchOptions } from '../../lib/safe-fetch.ts';
import type { Db } from '../../plugins/db.ts';
import { findFavicon } from './favicon.ts';
import { faviconOf, saveFavicon } from './store.ts';

/** The guarded client's rules for favicons: the address rules of captures, and short time limits. */
function fetchOptions(config: Config): SafeFetchOptions {
  return {
    allowPrivate: config.ingest.allowPrivateFetch,
    allowList: config.ingest.allowPrivate,
    maxRedirects: 3,
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 5_000,
    totalTimeoutMs: 10_000,
    userAgent: 'ops-hub (favicon)',
  };
}

const underWay = new Map<string, Promise<IconLook>>();

export type IconLook = { found: true; png: Buffer } | { found: false; reason: string };

async function look(sql: Db, config: Config, id: string, href: string): Promise<IconLook> {
  const result = await findFavicon(href, fetchOptions(config));
  await saveFavicon(sql, id, href, result.ok ? result.png : null);
  return result.ok ? { found: true, png: result.png } : { found: false, reason: result.reason };
}

/** Looks for the app's favicon now, replacing what was found before; undefined when there is no such app. */
export async function refreshFavicon(sql: Db, config: Config, id: string): Promise<IconLook | undefined> {
  const row = await faviconOf(sql, id);
  if (!row) return undefined;
  let pending = underWay.get(id);
  if (!pending) {
    pending = look(sql, config, id, row.href).finally(() => underWay.delete(id));
    underWay.set(id, pending);
  }
  return pending;
}

/** The favicon kept for the app, looked for first when it never was; undefined when there is no such app. */
export async function appFavicon(sql: Db, config: Config, id: string): Promise<IconLook | undefined> {
  const row = await faviconOf(sql, id);
  if (!row) return undefined;
  if (row.favicon) return { found: true, png: row.favicon };
  if (row.checked) return { found: false, reason: 'none was found when the hub last looked' };
  return refreshFavicon(sql, config, id);
}
