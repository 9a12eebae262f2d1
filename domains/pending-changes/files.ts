// The files of pending changes (a suggest-tier agent's uploads) on disk: DATA_DIR/pending-uploads/<change id>, the
// folder 0700 and each file 0600, moved there from where the upload was received before the change's row commits.
// A file goes once its change is applied or rejected; at start, files no undecided change owns (a crash between
// the two) are removed, and uploads proposed when the bytes rode base64 in the payload are moved to files.
import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { uuidPattern } from '../../lib/schemas.ts';
import type { Sql } from '../../plugins/db.ts';
import type { WriteFile } from '../entities/registry.ts';
import {
  legacyUpload,
  legacyUploadIds,
  openFileChangeIds,
  type PendingChangeRow,
  setLegacyUploadFile,
} from './store.ts';

export function pendingFilesDir(dataDir: string): string {
  return path.join(dataDir, 'pending-uploads');
}

export function pendingFilePath(dataDir: string, changeId: string): string {
  return path.join(pendingFilesDir(dataDir), path.basename(changeId));
}

async function ensureDir(dataDir: string): Promise<string> {
  const dir = pendingFilesDir(dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir leaves an existing folder's mode alone.
  await chmod(dir, 0o700);
  return dir;
}

/** Moves a received file to where the change `changeId` keeps it (the same file system: a rename, no copy). */
export async function keepPendingFile(
  dataDir: string,
  changeId: string,
  file: Pick<WriteFile, 'path'>,
): Promise<void> {
  await ensureDir(dataDir);
  await rename(file.path, pendingFilePath(dataDir, changeId));
}

/**
 * Removes a decided change's file. Run after the decision committed, so it never fails the decision: a file that
 * cannot be removed now goes at the next start.
 */
export async function removePendingFile(dataDir: string, changeId: string): Promise<void> {
  await rm(pendingFilePath(dataDir, changeId), { force: true }).catch(() => undefined);
}

/** The file a change carries, as a write takes it; undefined for a change without one. */
export function pendingWriteFile(dataDir: string, change: PendingChangeRow): WriteFile | undefined {
  if (!change.file) return undefined;
  return { path: pendingFilePath(dataDir, change.id), ...change.file };
}

/** An upload proposed before files were kept on disk: its bytes written to its file, its payload left without. */
async function moveLegacyUpload(sql: Sql, dataDir: string, id: string): Promise<void> {
  await sql.begin(async (tx) => {
    const row = await legacyUpload(tx, id);
    if (!row) return;
    const bytes = Buffer.from(String(row.payload.content_base64), 'base64');
    const file = {
      name: typeof row.payload.filename === 'string' ? row.payload.filename : 'upload',
      type: typeof row.payload.mimetype === 'string' ? row.payload.mimetype : 'application/octet-stream',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
    // A decided change needs no file: only its description stays.
    if (row.status === 'pending' || row.status === 'applying') {
      await ensureDir(dataDir);
      await writeFile(pendingFilePath(dataDir, id), bytes, { mode: 0o600 });
    }
    await setLegacyUploadFile(tx, id, file);
  });
}

/**
 * Run at start, before any request: legacy uploads moved to files (one at a time, so memory holds one file at
 * most), then every file in the folder that no undecided change owns removed.
 */
export async function sweepPendingFiles(
  sql: Sql,
  dataDir: string,
  log: Pick<FastifyBaseLogger, 'info'>,
): Promise<{ moved: number; removed: number }> {
  const legacy = await legacyUploadIds(sql);
  for (const id of legacy) await moveLegacyUpload(sql, dataDir, id);
  const owned = new Set(await openFileChangeIds(sql));
  const dir = pendingFilesDir(dataDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const orphans = names.filter((name) => !(uuidPattern.test(name) && owned.has(name)));
  await Promise.all(orphans.map((name) => rm(path.join(dir, name), { force: true, recursive: true })));
  if (legacy.length > 0 || orphans.length > 0) {
    log.info(
      { moved: legacy.length, removed: orphans.length },
      'pending uploads: moved base64 payloads to files and removed files no pending change owns',
    );
  }
  return { moved: legacy.length, removed: orphans.length };
}
