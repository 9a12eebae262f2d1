// The database pool: postgres.js with a 30 s statement timeout. A connection dropped while idle (server
// restart, pg_terminate_backend, network blip) is logged; postgres.js opens a new one for the next query.
// A watch pings the database twice a second on a connection of its own: while it goes unanswered (server stopped,
// restarting or frozen) API requests answer 503 DATABASE_UNAVAILABLE at once instead of queueing behind a pool
// that cannot connect, and /api/readyz says not ready, and why, within its own short timeout.
//
// The server's statement_timeout cannot end a query on a server that is frozen (its processes stopped, the
// sockets still open): nothing would answer, and every request holding a connection would wait for the kernel to
// give up on it. So the bounds are the client's: a connection must be open and ready within connect_timeout, and
// when three pings in a row go unanswered (each re-tried at once) the pool's sockets are cut, which fails every
// query waiting on them (503 DATABASE_UNAVAILABLE, about 3.5 s after the freeze at most), and no new connection is
// tried (queries needing one fail at once) until a ping is answered again. A slow ping or two (a busy machine)
// change nothing: requests are refused only once the database is confirmed gone.
import net from 'node:net';
import postgres, { type ISql, type Sql } from 'postgres';

export type { Sql };
/** A pool or a transaction: what store functions take, so callers decide the transaction. */
// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
export type Db = ISql<{}>;

export interface DbLogger {
  warn(object: object, message: string): void;
}

const ending = new WeakSet<Sql>();
/** Each pool's open sockets, so that a database which stopped answering can be let go of (cutConnections). */
const poolSockets = new WeakMap<Sql, PoolSockets>();

/** What postgres.js hands a custom socket function: the parsed address of the server. */
interface ServerAddress {
  host: string[];
  port: number[];
  path: string | false;
}

interface PoolSockets {
  open(address: ServerAddress): net.Socket;
  /** Destroys every open socket and refuses new ones until `resume`; answers how many there were. */
  cut(): number;
  resume(): void;
}

/**
 * The pool's sockets, opened here rather than inside postgres.js so they can be destroyed from outside. They connect
 * as postgres.js would (a Unix socket path, or the hosts of the URL in turn); postgres.js writes its start-up message
 * at once, which the socket sends when connected, and its connect_timeout covers the whole way to a ready session.
 */
function poolSocketsOf(): PoolSockets {
  const sockets = new Set<net.Socket>();
  let next = 0;
  let held = false;
  return {
    open(address) {
      const socket = new net.Socket();
      if (held) {
        // The database is not answering: a new connection would only wait out connect_timeout. It fails at once
        // (after postgres.js has attached its listeners), as a server that refuses connections does.
        const refused = Object.assign(new Error('the database is not answering; no connection is opened'), {
          code: 'ECONNREFUSED',
        });
        setImmediate(() => socket.destroy(refused));
        return socket;
      }
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      if (address.path) {
        socket.connect(address.path);
      } else {
        const index = next++ % address.host.length;
        const host = address.host[index] ?? 'localhost';
        const port = address.port[index] ?? address.port[0] ?? 5432;
        // postgres.js names the server in its connection errors from these.
        Object.assign(socket, { host, port });
        socket.connect(port, host);
      }
      return socket;
    },
    cut() {
      held = true;
      const count = sockets.size;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      return count;
    },
    resume() {
      held = false;
    },
  };
}

/** Seconds before reconnecting after `attempts` failed connections: 0.1 s more each time, at most 1 s. */
export function reconnectBackoff(attempts: number): number {
  return Math.min(0.1 * attempts, 1);
}

export function createSql(url: string, log: DbLogger, max = 10): Sql {
  const sockets = poolSocketsOf();
  // postgres.js takes a socket function (documented, though missing from its types).
  const socket = { socket: (address: ServerAddress) => sockets.open(address) };
  // No idle timeout: a connection only closes when something went wrong, so every close is worth a line.
  const sql: Sql = postgres(url, {
    ...socket,
    max,
    // Seconds. A server that is up answers a connect in milliseconds; a stopped or frozen one should fail the
    // request quickly rather than hold it for the driver's default 30 s.
    connect_timeout: 2,
    // postgres.js waits before reconnecting a connection that failed, up to 20 s after a run of failures (an
    // outage): the first requests after the database is back would wait that long. Back off briefly instead.
    backoff: reconnectBackoff,
    onnotice: () => undefined,
    onclose: (connectionId: number) => {
      if (!ending.has(sql))
        log.warn({ connectionId }, 'database connection dropped; a new one opens on demand');
    },
    // TimeZone UTC: a plain date sent for a timestamp (due_at: "2026-12-05") is midnight UTC on every server.
    connection: { statement_timeout: 30_000, application_name: 'ops-hub', TimeZone: 'UTC' },
    transform: { undefined: null },
  });
  poolSockets.set(sql, sockets);
  return sql;
}

/**
 * Lets go of every connection of the pool: queries waiting on them fail with CONNECTION_CLOSED (a 503 for a
 * request) instead of waiting for a server that stopped answering, and so do queries that would need a new
 * connection, at once, until resumeConnections.
 */
export function cutConnections(sql: Sql): number {
  return poolSockets.get(sql)?.cut() ?? 0;
}

/** The pool opens connections again (on demand), after cutConnections. */
export function resumeConnections(sql: Sql): void {
  poolSockets.get(sql)?.resume();
}

/** Ends the pool quietly: these closes are ours, not dropped connections. */
export async function endSql(sql: Sql): Promise<void> {
  ending.add(sql);
  await sql.end({ timeout: 5 });
}

/** Refuses a superuser role: the service must not be able to bypass the database's own protections. */
export async function assertNotSuperuser(sql: Sql, allow: boolean): Promise<void> {
  const [row] = await sql<{ rolsuper: boolean; role: string }[]>`
    select rolsuper, rolname as role from pg_roles where rolname = current_user`;
  if (row?.rolsuper && !allow) {
    throw new Error(
      `the database role "${row.role}" is a superuser; connect with a role without superuser rights ` +
        'or set DATABASE_ALLOW_SUPERUSER=1 to accept the risk',
    );
  }
}

export interface DatabaseWatch {
  /** False from the third unanswered ping in a row until the next answered one. */
  up(): boolean;
  /** Why the last ping went unanswered, and since when; null while the database answers. */
  problem(): { reason: string; since: Date } | null;
  /** Pings now (or joins the ping under way); false when no answer comes within the watch's timeout. */
  check(): Promise<boolean>;
  stop(): Promise<void>;
}

export interface WatchOptions {
  intervalMs?: number;
  /** How long a ping may go unanswered. */
  timeoutMs?: number;
  /**
   * Called when a third ping in a row goes unanswered: the database has stopped answering, not merely slowed for
   * a moment; `up()` turns false with it. (After an unanswered ping the next follows at once.)
   */
  onDown?: (reason: string, error: Error | null) => void;
  /** Called when a ping is answered again after onDown. */
  onUp?: () => void;
}

/** How late a ping's deadline may fire before the process counts as busy, and the grace a busy process gives. */
const busyGraceMs = 50;

/** Unanswered pings in a row that mean the database is gone (each ping is given the watch's timeout). */
const missesForDown = 3;

/** Unanswered pings in a row after which the watch's connection is replaced: a socket may hang for good. */
const replaceAfterMisses = 5;

/**
 * Pings `url` every `intervalMs` on a connection of its own, each ping given `timeoutMs` to answer; after an
 * unanswered one, again at once. The connection itself may take longer to open (a busy machine forks a server
 * process slowly): a ping waits for it, and counts as unanswered meanwhile.
 */
export function watchDatabase(url: string, options: WatchOptions = {}): DatabaseWatch {
  const { intervalMs = 500, timeoutMs = 1000, onDown, onUp } = options;
  let client: Sql | null = null;
  let problem: { reason: string; since: Date } | null = null;
  let pending: Promise<boolean> | null = null;
  let stopped = false;
  let lastError: Error | null = null;
  /** Unanswered pings in a row. */
  let misses = 0;

  const replace = () => {
    client?.end({ timeout: 0 }).catch(() => undefined);
    client = null;
  };

  const ping = async (): Promise<boolean> => {
    client ??= postgres(url, {
      max: 1,
      connect_timeout: Math.max(5, (2 * timeoutMs) / 1000),
      idle_timeout: 0,
      backoff: reconnectBackoff,
      onnotice: () => undefined,
      connection: { application_name: 'ops-hub-watch' },
    });
    let timer: NodeJS.Timeout | undefined;
    // Readiness is public: the reason names the error's code, never the server's address (the log has it all).
    const failure = await Promise.race([
      client`select 1`.then(
        () => null,
        (error: Error & { code?: unknown }) => {
          lastError = error;
          return `the ping failed (${typeof error.code === 'string' ? error.code : 'error'})`;
        },
      ),
      new Promise<string>((resolve) => {
        // Past the deadline, answers already received are read first (setImmediate runs after I/O). When this
        // process was busy, or starved of CPU (the timer fired late), an answer that came in time may need a few
        // turns of the loop to be read: it gets a short grace of free running before the ping counts as unanswered.
        const armed = performance.now();
        const unanswered = () => resolve(`no answer to a ping within ${timeoutMs} ms`);
        timer = setTimeout(() => {
          const late = performance.now() - armed - timeoutMs;
          if (late > busyGraceMs) timer = setTimeout(() => setImmediate(unanswered), busyGraceMs);
          else setImmediate(unanswered);
        }, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (failure === null) {
      if (misses >= missesForDown) onUp?.();
      problem = null;
      misses = 0;
      return true;
    }
    misses += 1;
    problem = { reason: failure, since: problem?.since ?? new Date() };
    if (misses === missesForDown) onDown?.(failure, lastError);
    lastError = null;
    // A server that went away without closing the socket would never answer on it: start afresh now and then.
    if (misses % replaceAfterMisses === 0) replace();
    // A miss is confirmed (or not) at once rather than at the next tick, on the same connection: an answer that is
    // merely late answers them all.
    if (misses < missesForDown) setImmediate(() => void check());
    return false;
  };

  const check = () => {
    if (stopped) return Promise.resolve(problem === null);
    pending ??= ping().finally(() => {
      pending = null;
    });
    return pending;
  };

  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return {
    // A miss or two is a busy machine as often as a stopped database: refusing requests waits for the third.
    up: () => misses < missesForDown,
    problem: () => problem,
    check,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await pending;
      await client?.end({ timeout: 1 }).catch(() => undefined);
      client = null;
    },
  };
}

/** Routes that answer without the database: liveness, readiness (asks the watch itself) and the version. */
