// PostgreSQL and driver errors in the API's terms: the status a client can act on, a catalogued code and a message
// in words (never SQL, a constraint's name or a stack). The error handler (plugins/errors.ts) answers with it; the
// process's rejection judge (lib/rejections.ts) tells a lost database from a bug with it.
import type { ErrorCode } from './errors.ts';

export interface PostgresLikeError {
  code?: string;
  message?: string;
  constraint_name?: string;
  table_name?: string;
  detail?: string;
  column_name?: string;
}

const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
  // The database was dropped, or our role was refused: for a client, the database is as good as down.
  '3D000',
  '28000',
  '28P01',
]);

export interface MappedError {
  statusCode: number;
  code: ErrorCode;
  message: string;
}

/** `spaces` → `space`, `source_docs` → `source document`: the row a table holds, in words. */
function rowName(table: string | undefined): string {
  if (!table) return 'record';
  const words: Record<string, string> = { source_docs: 'source document', network_hosts: 'network host' };
  if (words[table]) return words[table];
  return table.replace(/_/g, ' ').replace(/ies$/, 'y').replace(/s$/, '');
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `agent` → `an agent`, `space` → `a space`. */
function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

/**
 * `Key (name)=(Home) already exists.` → `a space named "Home" already exists`, never the constraint's name. A key on
 * an expression (`lower(name)`) names its column and says the comparison ignores case.
 */
function duplicateMessage(error: PostgresLikeError): string {
  const row = rowName(error.table_name);
  const match = /^Key \((.+?)\)=\((.*)\) already exists\.?$/s.exec(error.detail ?? '');
  if (!match) return `such ${withArticle(row)} already exists`;
  const [, columns, values] = match;
  const names = columns.split(', ');
  const parts = values.split(', ');
  // A value holding ", " splits wrongly: then nothing is named rather than the wrong thing.
  if (parts.length !== names.length) return `such ${withArticle(row)} already exists`;
  let ignoringCase = false;
  // Composite keys (space_id, url) name only what a person recognises: the text, not the ids.
  const shown = names
    .map((key, i) => {
      const lowered = /^lower\((\w+)\)$/.exec(key);
      if (lowered) ignoringCase = true;
      return { column: lowered ? lowered[1] : key, value: parts[i] };
    })
    .filter(({ column, value }) => /^\w+$/.test(column) && column !== 'id' && !uuid.test(value));
  if (shown.length === 0) return `such ${withArticle(row)} already exists`;
  const said = shown
    .map(({ column, value }) =>
      column === 'name' ? `named "${value}"` : `with ${column.replace(/_/g, ' ')} "${value}"`,
    )
    .join(' and ');
  const here = names.length > shown.length ? ' here' : '';
  return `${withArticle(row)} ${said} already exists${here}${ignoringCase ? ' (ignoring case)' : ''}`;
}

/**
 * A reference that does not hold, said of the row the client acted on: a delete refused because other rows still
 * refer to it (`update or delete on table "spaces" ... on table "agents"` → `the space is still used by an agent`),
 * or a write referring to a row that does not exist (`the agent refers to a space that does not exist`).
 */
function referenceMessage(error: PostgresLikeError): string {
  const deleted = /^update or delete on table "(\w+)"/.exec(error.message ?? '');
  if (deleted) {
    const referrer = /from table "(\w+)"/.exec(error.detail ?? '')?.[1] ?? error.table_name;
    return `the ${rowName(deleted[1])} is still used by ${withArticle(rowName(referrer))}`;
  }
  const missing = /is not present in table "(\w+)"/.exec(error.detail ?? '')?.[1];
  return `the ${rowName(error.table_name)} refers to ${withArticle(rowName(missing))} that does not exist`;
}

/** Maps PostgreSQL and driver errors to HTTP; returns null for anything else. */
export function mapDatabaseError(error: PostgresLikeError): MappedError | null {
  const code = error.code ?? '';
  if (code === '23505')
    return { statusCode: 409, code: 'UNIQUE_VIOLATION', message: duplicateMessage(error) };
  if (code === '23503') {
    return { statusCode: 409, code: 'FOREIGN_KEY_VIOLATION', message: referenceMessage(error) };
  }
  if (code === '23001') {
    return { statusCode: 409, code: 'RESTRICT_VIOLATION', message: referenceMessage(error) };
  }
  if (code === '22P02')
    return {
      statusCode: 400,
      code: 'INVALID_INPUT',
      message: 'invalid input syntax (for example a malformed uuid)',
    };
  if (code === '23514')
    return {
      statusCode: 400,
      code: 'CHECK_VIOLATION',
      message: `${withArticle(rowName(error.table_name))} value is not allowed`,
    };
  if (code === '23502')
    return {
      statusCode: 400,
      code: 'NOT_NULL_VIOLATION',
      message: `${error.column_name ?? 'a field'} is required`,
    };
  if (code === '22001') return { statusCode: 400, code: 'VALUE_TOO_LONG', message: 'a value is too long' };
  // 22021: a byte sequence PostgreSQL refuses in text (NUL); 22P05: an untranslatable character (lone surrogate).
  if (code === '22021' || code === '22P05' || code === '22P06')
    return {
      statusCode: 400,
      code: 'INVALID_INPUT',
      message: 'a text value holds a character that cannot be stored',
    };
  if (code === '22007' || code === '22008')
    return { statusCode: 400, code: 'INVALID_DATETIME', message: 'invalid date or time' };
  if (code === '22003')
    return { statusCode: 400, code: 'INVALID_INPUT', message: 'a number is out of range' };
  if (code === '40001' || code === '40P01')
    return { statusCode: 409, code: 'CONCURRENT_UPDATE', message: 'concurrent update, try again' };
  if (code === '57014')
    return { statusCode: 503, code: 'STATEMENT_TIMEOUT', message: 'the database took too long to answer' };
  // 08: connection exceptions; 53: insufficient resources (too many connections, disk full, out of memory).
  if (connectionCodes.has(code) || code.startsWith('08') || code.startsWith('53')) {
    return { statusCode: 503, code: 'DATABASE_UNAVAILABLE', message: 'the database is unavailable' };
  }
  return null;
}
