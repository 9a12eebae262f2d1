// Retained clips on disk: under VOICE_CLIPS_DIR (mode 0700), each file mode 0600 (personal data), named by its row's
// id. A clip is written before its row and removed if the row cannot be stored, so neither outlives the other.
import { randomUUID } from 'node:crypto';
import { chmod, copyFile, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Sql } from '../../plugins/db.ts';
import type { AudioType } from './audio.ts';
import type { VoiceClipRow } from './schema.ts';
import { deleteClip, deleteClipsBefore, insertClip } from './store.ts';

async function clipsDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir leaves an existing directory's mode alone.
  await chmod(dir, 0o700);
  return dir;
}

export function clipPath(dir: string, fileName: string): string {
  return path.join(dir, path.basename(fileName));
}

export async function retainClip(
  sql: Sql,
  dir: string,
  clip: {
    /** The received audio file: moved (or, on another file system, copied) into the folder. */
    file: string;
    size: number;
    type: AudioType;
    transcript: string;
    language: string | null;
    duration_s: number | null;
    provider: string;
  },
): Promise<VoiceClipRow> {
  const id = randomUUID();
  const fileName = `${id}.${clip.type.extension}`;
  const file = clipPath(await clipsDir(dir), fileName);
  await rename(clip.file, file).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EXDEV') throw error;
    await copyFile(clip.file, file);
  });
  await chmod(file, 0o600);
  try {
    return await insertClip(sql, {
      id,
      file_name: fileName,
      content_type: clip.type.contentType,
      size_bytes: clip.size,
      duration_s: clip.duration_s,
      language: clip.language,
      transcript: clip.transcript,
      provider: clip.provider,
    });
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  }
}

/** Deletes the row and its file; a file already gone is fine. */
export async function removeClip(sql: Sql, dir: string, id: string): Promise<boolean> {
  const row = await deleteClip(sql, id);
  if (!row) return false;
  await rm(clipPath(dir, row.file_name), { force: true });
  return true;
}

/** Deletes clips older than `days` at `now`; returns how many went. */
export async function purgeClips(sql: Sql, dir: string, days: number, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
  const rows = await deleteClipsBefore(sql, cutoff);
  await Promise.all(rows.map((row) => rm(clipPath(dir, row.file_name), { force: true })));
  return rows.length;
}
