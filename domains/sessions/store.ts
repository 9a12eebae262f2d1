import type { Db, Sql } from '../../plugins/db.ts';

export interface SessionRow {
  id: string;
  expires_at: Date;
}

/** Stores a new session (and drops the expired ones, so the table never grows past the live sessions). */
export async function createSession(sql: Sql, secretHash: Buffer, ttlSeconds: number): Promise<SessionRow> {
  return sql.begin(async (tx) => {
    await tx`delete from browser_sessions where expires_at <= now()`;
    const [row] = await tx<SessionRow[]>`
      insert into browser_sessions (secret_hash, expires_at)
      values (${secretHash}, now() + make_interval(secs => ${ttlSeconds}))
      returning id, expires_at`;
    return row;
  });
}

/** The live session behind a secret's hash, if any. */
export async function findSession(sql: Db, secretHash: Buffer): Promise<SessionRow | undefined> {
  const [row] = await sql<SessionRow[]>`
    select id, expires_at from browser_sessions where secret_hash = ${secretHash} and expires_at > now()`;
  return row;
}

export async function deleteSession(sql: Db, secretHash: Buffer): Promise<void> {
  await sql`delete from browser_sessions where secret_hash = ${secretHash}`;
}
