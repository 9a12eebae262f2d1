// What the export and import tests share: reading an exported zip, building archives to import, and sending them.
import { readFile } from 'node:fs/promises';
import { readZip } from '../../../lib/zip.ts';
import type { TestApp } from '../../helpers/app.ts';
import { multipart } from '../../helpers/multipart.ts';

export const fixture = (name: string) => readFile(new URL(`fixtures/${name}`, import.meta.url));

const generous = { maxEntries: 10_000, maxTotalBytes: 1e9, maxEntryBytes: 1e8, maxRatio: 10_000 };

/** The files of a space's export, by path. */
export async function exportOf(ta: TestApp, spaceId: string): Promise<Map<string, string>> {
  const response = await ta.asOwner({ method: 'GET', url: `/api/spaces/${spaceId}/export.zip` });
  if (response.statusCode !== 200) throw new Error(`export failed: ${response.body}`);
  const files = await readZip(response.rawPayload, generous);
  return new Map(files.map((file) => [file.path, file.bytes.toString('utf8')]));
}

/** POSTs one file to a space's import, with a query string (`?dry_run=true`). */
export function importFile(ta: TestApp, spaceId: string, bytes: Buffer, filename: string, query = '') {
  const form = multipart([{ name: 'file', value: bytes, filename, type: 'application/octet-stream' }]);
  return ta.asOwner({
    method: 'POST',
    url: `/api/spaces/${spaceId}/import${query}`,
    headers: form.headers,
    payload: form.payload,
  });
}
