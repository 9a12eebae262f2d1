// What the hub refuses in any input before it reaches a route: text PostgreSQL cannot store (NUL; lone UTF-16
// surrogates, which would be stored as U+FFFD and silently change the text), JSON nested deeper than a documented
// limit, numbers that are not finite, and timestamps JavaScript cannot represent (leap seconds). plugins/input.ts
// applies them to every request, and the formats are registered with both validators (Fastify's Ajv and TypeBox's,
// used by the tool protocol).
import { hubError } from './errors.ts';

/** How deeply a JSON body may nest (objects and arrays, the body itself being level 1). */
export const maxJsonDepth = 32;

/** Why a string cannot be stored as text, or null when it can. */
export function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'holds a NUL character (\\u0000), which cannot be stored';
  // Not well formed: a high surrogate without its low one, or a low one alone.
  if (!value.isWellFormed()) return 'holds an unpaired UTF-16 surrogate, which is not valid Unicode';
  return null;
}

export interface InputProblem {
  /** Where, in Fastify's validation style: `body/metadata/tags/0`, `querystring/q`. */
  field: string;
  kind: 'text' | 'depth' | 'number';
  message: string;
}

function joined(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * The first problem in a parsed value (keys are checked like values), walking iteratively so no nesting can
 * overflow the stack. `root` names the part of the request (body, querystring, params).
 */
export function findInputProblem(value: unknown, root: string): InputProblem | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) return { field: path, kind: 'text', message: `${path} ${problem}` };
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) {
        return { field: path, kind: 'number', message: `${path} must be a finite number` };
      }
    } else if (current !== null && typeof current === 'object' && !Buffer.isBuffer(current)) {
      if (depth + 1 > maxJsonDepth) {
        // Named by its outermost field, which is what the client wrote (`body/value`, `body/metadata`).
        const field = path.split('/').slice(0, 2).join('/');
        return { field, kind: 'depth', message: `${field} is nested deeper than ${maxJsonDepth} levels` };
      }
      const entries = Array.isArray(current) ? current.entries() : Object.entries(current);
      for (const [key, inner] of entries) {
        const innerPath = joined(path, key);
        if (typeof key === 'string') {
          const problem = textProblem(key);
          if (problem)
            return { field: innerPath, kind: 'text', message: `the key of ${innerPath} ${problem}` };
        }
        stack.push({ value: inner, path: innerPath, depth: depth + 1 });
      }
    }
  }
  return null;
}

/** The catalogued 400 for a problem: INVALID_TEXT, JSON_TOO_DEEP or VALIDATION_FAILED, naming the field. */
export function inputError(problem: InputProblem): Error {
  if (problem.kind === 'depth') return hubError('JSON_TOO_DEEP', problem.field, maxJsonDepth);
  if (problem.kind === 'text') return hubError('INVALID_TEXT', problem.message);
  return hubError('VALIDATION_FAILED', problem.message);
}

/** Throws the first problem of a value parsed outside Fastify's body parsing (a webhook's verified raw body). */
export function assertStorable(value: unknown, root: string): void {
  const problem = findInputProblem(value, root);
  if (problem) throw inputError(problem);
}

const dateTimePattern =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[Tt ](?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const datePattern = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/;

/**
 * RFC 3339 date-time that JavaScript and PostgreSQL both represent: seconds 00-59 (a leap second `23:59:60` has
 * no Date), a real calendar day (no 31 April), an offset required.
 */
export function isDateTime(value: string): boolean {
  return (
    dateTimePattern.test(value) &&
    realDay(value.slice(0, 10)) &&
    !Number.isNaN(Date.parse(value.replace(' ', 'T')))
  );
}

/** A calendar date `YYYY-MM-DD` that exists. */
export function isDate(value: string): boolean {
  return datePattern.test(value) && realDay(value);
}

function realDay(date: string): boolean {
  const [year, month, day] = date.split('-').map(Number);
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return (
    parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day
  );
}

/**
 * A link the hub stores and shows (`format: 'web-url'`): an absolute http or https URL with a host. `javascript:`,
 * `data:`, `file:` and the like are refused where they are written (400 URL_REFUSED), not left to the browser.
 */
export function isWebUrl(value: string): boolean {
  const url = URL.parse(value);
  return (url?.protocol === 'http:' || url?.protocol === 'https:') && url.hostname !== '';
}

/** A validator's error list (Ajv's or TypeBox's, which share this shape). */
type SchemaProblem = { keyword: string; instancePath: string; params?: unknown };

/** The field whose value failed the web-url format, if that is among the problems ('/url'). */
export function refusedUrlField(problems: readonly SchemaProblem[]): string | undefined {
  return problems.find(
    (problem) =>
      problem.keyword === 'format' && (problem.params as { format?: string })?.format === 'web-url',
  )?.instancePath;
}

/**
 * A route's preValidation for a POST whose body may be left out: no body, or an empty one (a script's
 * `Content-Type: text/plain` with nothing after it), reads as `{}`.
 */
export async function bodyOptional(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null || request.body === '') request.body = {};
}
