// Storing an uploaded set: the archive read under the configured limits, its files sorted into accepted and
// rejected, and the set with all its icons written in one transaction, so a failed upload leaves nothing behind.
import type { IconZipLimits } from '../../config/icons.ts';
import { hubError, hubErrorWith } from '../../lib/errors.ts';
import { readZip, ZipRefusedError, type ZipSource } from '../../lib/zip.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { type AcceptedIcon, type RejectedFile, takeIcons } from './ingest.ts';
import { setNamePattern } from './schema.ts';
import { createOrEmptyIconSet, findIconSet, type IconSetRow, insertIcons } from './store.ts';

export const setName = new RegExp(setNamePattern);

/** Where an icon of a set is served. */
export const iconUrl = (set: string, name: string, type: string) => `/api/icon-sets/${set}/${name}.${type}`;

/** The name, when it could name a set; else 404 ICON_SET_NOT_FOUND (without asking the database). */
export function knownSet(name: string): string {
  if (!setName.test(name)) throw hubError('ICON_SET_NOT_FOUND', name);
  return name;
}

export interface StoredSet {
  set: IconSetRow;
  accepted: AcceptedIcon[];
  rejected: RejectedFile[];
}

const refusalCodes = {
  invalid: 'ZIP_INVALID',
  unsafe: 'ZIP_UNSAFE_ENTRY',
  limit: 'ZIP_LIMIT_EXCEEDED',
} as const;

/** 409 unless `replace`: checked before the archive is read, and again when the set is written. */
export async function assertSetFree(sql: Db, name: string, replace: boolean): Promise<void> {
  if (!replace && (await findIconSet(sql, name))) throw hubError('ICON_SET_EXISTS', name);
}

export async function storeIconSet(
  sql: Sql,
  limits: IconZipLimits,
  name: string,
  replace: boolean,
  zip: ZipSource,
): Promise<StoredSet> {
  let files: { path: string; bytes: Buffer }[];
  try {
    files = await readZip(zip, limits);
  } catch (error) {
    if (error instanceof ZipRefusedError) throw hubError(refusalCodes[error.kind], error.message);
    throw error;
  }
  const { accepted, rejected } = await takeIcons(files);
  if (accepted.length === 0) {
    throw hubErrorWith(
      { accepted: [], rejected },
      'NO_ACCEPTABLE_ICON',
      files.length === 0
        ? 'the archive holds no files; icon sets take .svg and .png icons'
        : `none of the ${files.length} files is an acceptable .svg or .png icon (see rejected)`,
    );
  }
  const set = await sql.begin(async (tx) => {
    if (!(await createOrEmptyIconSet(tx, name, replace))) throw hubError('ICON_SET_EXISTS', name);
    await insertIcons(tx, name, accepted);
    return findIconSet(tx, name);
  });
  if (!set) throw hubError('ICON_SET_NOT_FOUND', name);
  return { set, accepted, rejected };
}
