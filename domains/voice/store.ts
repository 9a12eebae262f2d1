// SQL of retained voice clips.
import type { Db } from '../../plugins/db.ts';
import type { VoiceClip, VoiceClipRow } from './schema.ts';

const columns = (sql: Db) =>
  sql`id, file_name, content_type, size_bytes, duration_s, language, transcript, provider, created_at`;

export async function insertClip(sql: Db, clip: Omit<VoiceClipRow, 'created_at'>): Promise<VoiceClipRow> {
  const [row] = await sql<VoiceClipRow[]>`
    insert into voice_clips (id, file_name, content_type, size_bytes, duration_s, language, transcript, provider)
    values (${clip.id}, ${clip.file_name}, ${clip.content_type}, ${clip.size_bytes}, ${clip.duration_s},
      ${clip.language}, ${clip.transcript}, ${clip.provider})
    returning ${columns(sql)}`;
  return row;
}

export async function listClips(
  sql: Db,
  page: { limit: number; offset: number },
): Promise<{ items: VoiceClip[]; total: number }> {
  const items = await sql<VoiceClipRow[]>`
    select ${columns(sql)} from voice_clips order by created_at desc, id desc
    limit ${page.limit} offset ${page.offset}`;
  const [{ total }] = await sql<{ total: number }[]>`select count(*)::int as total from voice_clips`;
  return { items, total };
}

export async function findClip(sql: Db, id: string): Promise<VoiceClipRow | undefined> {
  const [row] = await sql<VoiceClipRow[]>`select ${columns(sql)} from voice_clips where id = ${id}`;
  return row;
}

export async function deleteClip(sql: Db, id: string): Promise<VoiceClipRow | undefined> {
  const [row] = await sql<VoiceClipRow[]>`delete from voice_clips where id = ${id} returning ${columns(sql)}`;
  return row;
}

/** Removes the clips created before `cutoff`, returning them so their files go too. */
export async function deleteClipsBefore(sql: Db, cutoff: Date): Promise<VoiceClipRow[]> {
  return sql<VoiceClipRow[]>`delete from voice_clips where created_at < ${cutoff} returning ${columns(sql)}`;
}
