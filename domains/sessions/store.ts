// Browser sessions of the owner, the failed sign-ins and wrong tokens counted per client address, and the request
// rate limits every process counts alike.
import type { Db, Sql } from '../../plugins/db.ts';

export interface SessionRow {
  id: string;
  expires_at: Date;
}

export interface SessionListRow {
  id: string;
  created_at: Date;
  last_used_at: Date;
  expires_at: Date;
  address: string | null;
  user_agent: string | null;
}

export interface NewSession {
  secretHash: Buffer;
  ttlSeconds: number;
  /** The digest of the owner token the session is made with (lib/secrets.ts ownerTokenDigest). */
  ownerDigest: Buffer;
  address: string | null;
  userAgent: string | null;
}

/**
 * Stores a new session, and drops the sessions that can never be used again (expired, or made with another owner
 * token), so the table never grows past the live sessions.
 */
export async function createSession(sql: Sql, session: NewSession): Promise<SessionRow> {
  return sql.begin(async (tx) => {
    await tx`delete from browser_sessions where expires_at <= now() or owner_digest <> ${session.ownerDigest}`;
    const [row] = await tx<SessionRow[]>`
      insert into browser_sessions (secret_hash, expires_at, owner_digest, address, user_agent)
      values (${session.secretHash}, now() + make_interval(secs => ${session.ttlSeconds}), ${session.ownerDigest},
        ${session.address}, ${session.userAgent})
      returning id, expires_at`;
    return row;
  });
}

/** The live session behind a secret's hash, made with the current owner token, if any (its use is recorded). */
export async function findSession(
  sql: Db,
  secretHash: Buffer,
  ownerDigest: Buffer,
): Promise<SessionRow | undefined> {
  const [row] = await sql<SessionRow[]>`
    select id, expires_at from browser_sessions
    where secret_hash = ${secretHash} and owner_digest = ${ownerDigest} and expires_at > now()`;
  if (row) {
    // At most once a minute, so a busy browser does not turn every read into a write.
    await sql`update browser_sessions set last_used_at = now()
      where id = ${row.id} and last_used_at < now() - interval '1 minute'`;
  }
  return row;
}

/** The live sessions made with the current owner token, most recently used first. */
export async function listSessions(sql: Db, ownerDigest: Buffer): Promise<SessionListRow[]> {
  return sql<SessionListRow[]>`
    select id, created_at, last_used_at, expires_at, address, user_agent from browser_sessions
    where owner_digest = ${ownerDigest} and expires_at > now()
    order by last_used_at desc, id`;
}

export async function deleteSession(sql: Db, secretHash: Buffer): Promise<void> {
  await sql`delete from browser_sessions where secret_hash = ${secretHash}`;
}

/** Ends one live session; false when there is none with that id. */
export async function deleteSessionById(sql: Db, id: string, ownerDigest: Buffer): Promise<boolean> {
  const result = await sql`
    delete from browser_sessions where id = ${id} and owner_digest = ${ownerDigest} and expires_at > now()`;
  return result.count > 0;
}

/** Ends every session: signed out everywhere. */
export async function deleteAllSessions(sql: Db): Promise<void> {
  await sql`delete from browser_sessions`;
}

/**
 * Whether an address is past its failure limit in its current window: the seconds left (0: it may try), and whether
 * this is the window's first refusal (claimed atomically, so concurrent refusals log it once).
 */
export async function checkFailures(
  sql: Db,
  address: string,
  limit: number,
  windowSeconds: number,
): Promise<{ retryAfter: number; firstRefusal: boolean }> {
  const [row] = await sql<{ retry_after: number; first_refusal: boolean }[]>`
    with blocked as (
      select address, window_started_at from auth_failures
      where address = ${address} and failures >= ${limit}
        and window_started_at > now() - make_interval(secs => ${windowSeconds})
    ), claimed as (
      update auth_failures f set refusal_logged = true from blocked b
      where f.address = b.address and not f.refusal_logged
      returning f.address
    )
    select ceil(extract(epoch from b.window_started_at + make_interval(secs => ${windowSeconds}) - now()))::int
        as retry_after,
      exists (select 1 from claimed) as first_refusal
    from blocked b`;
  return row ? { retryAfter: Math.max(1, row.retry_after), firstRefusal: row.first_refusal } : noRefusal;
}

const noRefusal = { retryAfter: 0, firstRefusal: false };

/** Counts one failure of an address, starting a new window when its last one is over; ended windows are dropped. */
export async function recordFailure(sql: Db, address: string, windowSeconds: number): Promise<void> {
  await sql`
    with ended as (
      delete from auth_failures
      where window_started_at <= now() - make_interval(secs => ${windowSeconds}) and address <> ${address}
    )
    insert into auth_failures as f (address) values (${address})
    on conflict (address) do update set
      failures = case when f.window_started_at > now() - make_interval(secs => ${windowSeconds})
        then f.failures + 1 else 1 end,
      refusal_logged = f.refusal_logged and f.window_started_at > now() - make_interval(secs => ${windowSeconds}),
      window_started_at = case when f.window_started_at > now() - make_interval(secs => ${windowSeconds})
        then f.window_started_at else now() end`;
}

export interface RateWindow {
  hits: number;
  /** Milliseconds left of the window. */
  ttl_ms: number;
}

/**
 * Counts one request of a key in its fixed window (a new window when the last one ended). Windows long ended are
 * removed on the way, a few at a time, skipping rows another process holds, so concurrent requests never deadlock.
 */
export async function hitRateWindow(sql: Db, keyDigest: Buffer, windowMs: number): Promise<RateWindow> {
  const [row] = await sql<RateWindow[]>`
    with ended as (
      delete from rate_limit_windows where key_digest in (
        select key_digest from rate_limit_windows
        where ends_at < now() - interval '1 minute' and key_digest <> ${keyDigest}
        limit 20 for update skip locked)
    )
    insert into rate_limit_windows as w (key_digest, ends_at)
    values (${keyDigest}, now() + make_interval(secs => ${windowMs / 1000}))
    on conflict (key_digest) do update set
      hits = case when w.ends_at > now() then w.hits + 1 else 1 end,
      ends_at = case when w.ends_at > now() then w.ends_at else excluded.ends_at end
    returning hits, ceil(extract(epoch from ends_at - now()) * 1000)::int as ttl_ms`;
  return row;
}

/** The count of a key's current window without counting (none: 0). */
export async function readRateWindow(sql: Db, keyDigest: Buffer): Promise<RateWindow> {
  const [row] = await sql<RateWindow[]>`
    select hits, ceil(extract(epoch from ends_at - now()) * 1000)::int as ttl_ms
    from rate_limit_windows where key_digest = ${keyDigest} and ends_at > now()`;
  return row ?? { hits: 0, ttl_ms: 0 };
}
